// Voxtral Realtime (voxtral_realtime; mistralai/Voxtral-Mini-4B-Realtime-2602): a causal, streaming audio
// encoder (Whisper's convolutions without their padding on the right, RoPE, RMSNorm, a gated MLP, a sliding
// window), four of its frames side by side into a two-linear projector, and a Mistral-style decoder whose MLP
// input is scaled by an adaptive RMSNorm conditioned on the streaming delay. Built as transformers'
// VoxtralRealtimeForConditionalGeneration registers its modules: audio_tower, language_model (a whole
// VoxtralRealtimeTextForCausalLM), multi_modal_projector; its time embedding holds a buffer only. The encoder
// (voxtral_realtime_encoder) and the language model (voxtral_realtime_text) also build alone.
#include <cstdint>
#include <string>
#include <string_view>

#include "model/blocks.h"
#include "model/families/audio_llms.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// VoxtralRealtimeTextAdaRmsNorm's bottleneck: nn.Linear(hidden_size, 32) then back, a width no config sets.
constexpr uint64_t kAdaNormBottleneck = 32;

// VoxtralRealtimeEncoderConfig's sizes; the class defaults are Voxtral-Mini-4B-Realtime's encoder.
struct VoxtralRealtimeEncoderDims {
  uint64_t hidden = 0, layers = 0, heads = 0, head_dim = 0, ffn = 0, mels = 0, window = 0;
};

// The config class aliases Whisper's names (d_model, encoder_layers, encoder_attention_heads,
// encoder_ffn_dim) to its own, and num_key_value_heads to num_attention_heads: its attention has as many key
// heads as query heads. A config may spell either name.
VoxtralRealtimeEncoderDims voxtral_realtime_encoder_dims(const ModelConfig& cfg) {
  const auto key = [&](std::string_view name, std::string_view alias) {
    return cfg.has(name) || !cfg.has(alias) ? name : alias;
  };
  VoxtralRealtimeEncoderDims d;
  d.hidden = cfg.dim_or(key("hidden_size", "d_model"), 1280);
  d.layers = cfg.layers_or(key("num_hidden_layers", "encoder_layers"), 32);
  const std::string_view heads =
      key(key("num_attention_heads", "encoder_attention_heads"), "num_key_value_heads");
  d.heads = cfg.dim_or(heads, 32);
  if (cfg.has("num_key_value_heads") && cfg.dim("num_key_value_heads") != d.heads)
    cfg.fail("num_key_value_heads", "is num_attention_heads' alias and must equal it");
  d.ffn = cfg.dim_or(key("intermediate_size", "encoder_ffn_dim"), 5120);
  // head_dim defaults to 64 whatever the width (32 x 64 = 2048 query values from 1280); null: width / heads.
  const json::Value* head_dim = cfg.raw("head_dim");
  d.head_dim = head_dim && head_dim->is_null() ? split_heads(cfg, heads, d.hidden, d.heads)
                                               : cfg.dim_or("head_dim", 64);
  d.mels = cfg.dim_or("num_mel_bins", 128);
  d.window = window_or_none(cfg, 750);
  return d;
}

// VoxtralRealtimeEncoder under `p` ("audio_tower." or "" alone): the embedder's two causal convolutions, the
// layers (q, v and o biased, k not, as Whisper's; RMSNorms; a gated MLP whose down projection alone has a
// bias), the final norm. Its layers form a stack of `role`. Returns its width.
uint64_t voxtral_realtime_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                                  StackRole role) {
  const VoxtralRealtimeEncoderDims d = voxtral_realtime_encoder_dims(cfg);
  const uint64_t inner = d.heads * d.head_dim;
  blocks::conv1d(t, p + "embedder.conv1", d.mels, d.hidden, 3);
  blocks::conv1d(t, p + "embedder.conv2", d.hidden, d.hidden, 3);
  StackSpec& s = t.arch.add_stack(role, p + "layers", d.hidden);
  s.mel_bins = d.mels;
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string l = s.path + "." + std::to_string(i) + ".";
    blocks::linear(t, l + "self_attn.q_proj", d.hidden, inner, true);
    blocks::linear(t, l + "self_attn.k_proj", d.hidden, inner, false);
    blocks::linear(t, l + "self_attn.v_proj", d.hidden, inner, true);
    blocks::linear(t, l + "self_attn.o_proj", inner, d.hidden, true);
    blocks::norm(t, l + "self_attn_layer_norm", d.hidden, false);
    blocks::norm(t, l + "final_layer_norm", d.hidden, false);
    blocks::linear(t, l + "mlp.gate_proj", d.hidden, d.ffn, false);
    blocks::linear(t, l + "mlp.up_proj", d.hidden, d.ffn, false);
    blocks::linear(t, l + "mlp.down_proj", d.ffn, d.hidden, true);
    LayerSpec layer;
    layer.attention.heads = layer.attention.kv_heads = d.heads;
    layer.attention.head_dim = d.head_dim;
    set_window(layer.attention, d.window);
    layer.ffn.intermediate = d.ffn;
    s.layers.push_back(layer);
  }
  blocks::norm(t, p + "norm", d.hidden, false);
  return d.hidden;
}

// VoxtralRealtimeTextModel under `prefix`: Mistral's layers (no biases, a sliding window) with each layer's
// ada_rms_norm after its norms. `d`: the defaults of the config's class or composite.
void voxtral_realtime_decoder(const ModelConfig& text, const DecoderDefaults& d, uint64_t default_window,
                              ModelTemplate& t, const std::string& prefix) {
  read_decoder_dims(text, d, t);
  t.arch.model_type = "voxtral_realtime_text";
  LlamaStyle s;
  s.sliding_window = window_or_none(text, default_window);
  s.layer_extras = [](ModelTemplate& m, const std::string& layer) {
    const uint64_t h = m.arch.hidden_size;
    blocks::linear(m, layer + ".ada_rms_norm.linear1", h, kAdaNormBottleneck, false);
    blocks::linear(m, layer + ".ada_rms_norm.linear2", kAdaNormBottleneck, h, false);
  };
  llama_style_decoder(t, prefix, s);
}

// VoxtralRealtimeTextConfig's own defaults (a Mistral-7B-sized decoder), for the text model alone.
DecoderDefaults voxtral_realtime_text_defaults() {
  DecoderDefaults d;
  d.intermediate_size = 14336;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 4096 * 32;
  return d;
}

// VoxtralRealtimeConfig's _default_text_config_kwargs, which fill what its text_config leaves out
// (Voxtral-Mini-4B-Realtime's language model).
DecoderDefaults voxtral_realtime_composite_text_defaults() {
  DecoderDefaults d;
  d.vocab_size = 131072;
  d.hidden_size = 3072;
  d.intermediate_size = 9216;
  d.num_hidden_layers = 26;
  d.num_key_value_heads = 8;
  d.head_dim = 128;
  d.max_position_embeddings = 131072;
  d.tie_word_embeddings = true;
  return d;
}

// The sub-config's model_type must be the one the class builds: transformers builds the tower with AutoModel
// and the language model as VoxtralRealtimeTextForCausalLM whatever text_config names.
void expect_sub_type(const ModelConfig& cfg, const ModelConfig& sub, std::string_view type) {
  const std::string named = sub.string_or("model_type", type);
  if (named != type) unsupported(cfg, "voxtral_realtime with a " + named + " sub-model");
}

}  // namespace

void build_voxtral_realtime(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "VoxtralRealtimeForConditionalGeneration";
  const ModelConfig audio = sub_or_empty(cfg, "audio_config");
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  expect_sub_type(cfg, audio, "voxtral_realtime_encoder");
  expect_sub_type(cfg, text, "voxtral_realtime_text");
  const uint64_t width = voxtral_realtime_encoder(audio, t, "audio_tower.", StackRole::Audio);
  voxtral_realtime_decoder(text, voxtral_realtime_composite_text_defaults(), 8192, t,
                           "language_model.model.");
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, true);
  lm_head(t, "language_model.model.embed_tokens.weight", t.arch, "language_model.lm_head.weight");
  // downsample_factor consecutive frames are read as one vector.
  const uint64_t h = t.arch.hidden_size;
  blocks::linear(t, "multi_modal_projector.linear_1", width * cfg.dim_or("downsample_factor", 4), h, false);
  blocks::linear(t, "multi_modal_projector.linear_2", h, h, false);
  record_projector(t, "multi_modal_projector");
}

void build_voxtral_realtime_encoder(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "VoxtralRealtimeEncoder";
  const uint64_t width = voxtral_realtime_encoder(cfg, t, "", StackRole::Encoder);
  const VoxtralRealtimeEncoderDims d = voxtral_realtime_encoder_dims(cfg);
  ArchitectureRecord& a = t.arch;
  a.hidden_size = width;
  a.num_layers = d.layers;
  a.num_attention_heads = a.num_key_value_heads = d.heads;
  a.head_dim = d.head_dim;
  a.intermediate_size = d.ffn;
  a.max_position_embeddings = cfg.count_or("max_position_embeddings", 1500);
}

void build_voxtral_realtime_text(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VoxtralRealtimeTextForCausalLM");
  const std::string task = supported_task(cfg, cls, "VoxtralRealtimeText", {"ForCausalLM", "Model"});
  t.arch.architecture = cls;
  const bool causal_lm = task == "ForCausalLM";
  voxtral_realtime_decoder(cfg, voxtral_realtime_text_defaults(), 4096, t, causal_lm ? "model." : "");
  if (causal_lm) lm_head(t, "model.embed_tokens.weight", t.arch);
}

}  // namespace ma::families
