// GLM-ASR (glmasr; zai-org/GLM-ASR-Nano-2512): Whisper's convolutions before pre-norm layers with rotary
// positions over half of each head (q, v and o biased, k not; LayerNorms; a GELU MLP), four of its frames
// side by side into a two-linear projector, and a Llama decoder. Built as transformers'
// GlmAsrForConditionalGeneration registers its modules: audio_tower, language_model (a whole causal LM),
// multi_modal_projector. The encoder also builds alone (glmasr_encoder).
#include <cstdint>
#include <string>

#include "model/blocks.h"
#include "model/families/audio_llms.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// GlmAsrEncoderConfig's sizes; its defaults are Whisper-large-v3's encoder.
struct GlmAsrEncoderDims {
  uint64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, mels = 0;
};

GlmAsrEncoderDims glmasr_encoder_dims(const ModelConfig& cfg) {
  GlmAsrEncoderDims d;
  d.hidden = cfg.dim_or("hidden_size", 1280);
  d.layers = cfg.layers_or("num_hidden_layers", 32);
  d.heads = cfg.dim_or("num_attention_heads", 20);
  d.kv_heads = cfg.dim_or("num_key_value_heads", d.heads);
  if (d.heads % d.kv_heads != 0) cfg.fail("num_key_value_heads", "must divide num_attention_heads");
  // The class sets head_dim to hidden_size / num_attention_heads; a head_dim config.json keeps overrides it.
  d.head_dim =
      cfg.has("head_dim") ? cfg.dim("head_dim") : split_heads(cfg, "num_attention_heads", d.hidden, d.heads);
  d.ffn = cfg.dim_or("intermediate_size", 5120);
  d.mels = cfg.dim_or("num_mel_bins", 128);
  return d;
}

// GlmAsrEncoder under `p` ("audio_tower." or "" alone), its layers a stack of `role`.
void glmasr_encoder(const GlmAsrEncoderDims& d, ModelTemplate& t, const std::string& p, StackRole role) {
  blocks::conv1d(t, p + "conv1", d.mels, d.hidden, 3);
  blocks::conv1d(t, p + "conv2", d.hidden, d.hidden, 3);
  StackSpec& s = t.arch.add_stack(role, p + "layers", d.hidden);
  s.mel_bins = d.mels;
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string l = s.path + "." + std::to_string(i) + ".";
    blocks::linear(t, l + "self_attn.q_proj", d.hidden, d.heads * d.head_dim, true);
    blocks::linear(t, l + "self_attn.k_proj", d.hidden, d.kv_heads * d.head_dim, false);
    blocks::linear(t, l + "self_attn.v_proj", d.hidden, d.kv_heads * d.head_dim, true);
    blocks::linear(t, l + "self_attn.o_proj", d.heads * d.head_dim, d.hidden, true);
    blocks::linear(t, l + "mlp.fc1", d.hidden, d.ffn, true);
    blocks::linear(t, l + "mlp.fc2", d.ffn, d.hidden, true);
    blocks::norm(t, l + "input_layernorm", d.hidden, true);
    blocks::norm(t, l + "post_attention_layernorm", d.hidden, true);
    LayerSpec layer;
    layer.attention.kind = attention_kind_of(d.heads, d.kv_heads);
    layer.attention.heads = d.heads;
    layer.attention.kv_heads = d.kv_heads;
    layer.attention.head_dim = d.head_dim;
    layer.ffn.gated = false;
    layer.ffn.intermediate = d.ffn;
    s.layers.push_back(layer);
  }
  blocks::norm(t, p + "norm", d.hidden, true);
}

// GlmAsrConfig's _default_text_config_kwargs, which fill what its text_config leaves out (GLM-ASR-Nano's
// language model); LlamaConfig's defaults for the rest (untied head, no biases).
DecoderDefaults glmasr_text_defaults() {
  DecoderDefaults d;
  d.vocab_size = 59264;
  d.hidden_size = 2048;
  d.intermediate_size = 6144;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 4;
  d.max_position_embeddings = 8192;
  return d;
}

}  // namespace

void build_glmasr(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GlmAsrForConditionalGeneration";
  const ModelConfig audio = sub_or_empty(cfg, "audio_config");
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string audio_type = audio.string_or("model_type", "glmasr_encoder");
  if (audio_type != "glmasr_encoder") unsupported(cfg, "glmasr with a " + audio_type + " audio tower");
  // AutoModelForCausalLM builds whatever text_config names; the published model's is Llama.
  const std::string text_type = text.string_or("model_type", "llama");
  if (text_type != "llama") unsupported(cfg, "glmasr with a " + text_type + " language model");
  const GlmAsrEncoderDims enc = glmasr_encoder_dims(audio);
  glmasr_encoder(enc, t, "audio_tower.", StackRole::Audio);
  read_decoder_dims(text, glmasr_text_defaults(), t);
  t.arch.model_type = text_type;
  LlamaStyle style = attention_bias_style(text);
  style.mlp_bias = text.flag_or("mlp_bias", false);
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  llama_style_decoder(t, "language_model.model.", style);
  lm_head(t, "language_model.model.embed_tokens.weight", t.arch, "language_model.lm_head.weight");
  // The projector reads the encoder's output four frames at a time: audio_config.intermediate_size values
  // (4 x hidden_size for the published sizes), through a hidden layer twice the text width.
  const uint64_t h = t.arch.hidden_size;
  blocks::linear(t, "multi_modal_projector.linear_1", enc.ffn, 2 * h, true);
  blocks::linear(t, "multi_modal_projector.linear_2", 2 * h, h, true);
  record_projector(t, "multi_modal_projector");
}

void build_glmasr_encoder(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GlmAsrEncoder";
  const GlmAsrEncoderDims d = glmasr_encoder_dims(cfg);
  glmasr_encoder(d, t, "", StackRole::Encoder);
  ArchitectureRecord& a = t.arch;
  a.hidden_size = d.hidden;
  a.num_layers = d.layers;
  a.num_attention_heads = d.heads;
  a.num_key_value_heads = d.kv_heads;
  a.head_dim = d.head_dim;
  a.intermediate_size = d.ffn;
  a.max_position_embeddings = cfg.count_or("max_position_embeddings", 1500);
}

}  // namespace ma::families
