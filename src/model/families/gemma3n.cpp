// Gemma 3n's language model configured alone (Gemma3nForCausalLM, model_type gemma3n_text; the
// composite's text_config). Gemma-3's sandwich-normed decoder with three additions in every layer:
// AltUp, which carries altup_num_inputs copies of the hidden state and predicts and corrects them with tiny
// coefficient matrices; LAuReL, a rank-laurel_rank residual beside attention; and per-layer embeddings (PLE):
// one table of num_layers x hidden_size_per_layer_input columns, read per token and fed to each layer through
// its own gate and projection. The MLPs may differ in width per layer (intermediate_size as a list:
// MatFormer slices). The last num_kv_shared_layers read keys and values from an earlier layer and, in
// transformers from 5.6 on, own no k_proj, v_proj or k_norm; the Hub checkpoints still store them
// (extras here, dropped on load). The composite (gemma3n) puts it beside a timm MobileNetV5 and an audio
// conformer (gemma3n_towers.cpp).
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

struct Gemma3n {
  std::vector<uint64_t> mlp;  // per layer
  uint64_t per_layer_input = 256, per_layer_vocab = 262144;
  uint64_t altup = 4, laurel_rank = 64;
  uint64_t first_shared = 0;  // layers from here on share an earlier layer's keys and values
};

// intermediate_size: one width for every layer, or a list of one per layer.
std::vector<uint64_t> mlp_widths(const ModelConfig& cfg, uint64_t layers) {
  const json::Value* v = cfg.raw("intermediate_size");
  if (!v || !v->is_array()) return std::vector<uint64_t>(layers, cfg.dim_or("intermediate_size", 16384));
  if (v->items().size() != layers)
    cfg.fail("intermediate_size", "must list one width per layer (" + std::to_string(layers) + ")");
  std::vector<uint64_t> widths;
  for (const json::Value& item : v->items()) {
    const std::optional<uint64_t> w = item.as_uint();
    if (!w || *w == 0 || *w > ModelConfig::kMaxValue)
      cfg.fail("intermediate_size", "must hold integers from 1 to " + std::to_string(ModelConfig::kMaxValue));
    widths.push_back(*w);
  }
  return widths;
}

Gemma3n read_gemma3n(const ModelConfig& cfg, ModelTemplate& t) {
  DecoderDefaults d;  // Gemma3nTextConfig's: Gemma 3n E4B
  d.vocab_size = 262400;
  d.hidden_size = 2048;
  d.num_hidden_layers = 35;
  d.num_attention_heads = 8;
  d.num_key_value_heads = 2;
  d.head_dim = 256;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 32768;
  d.intermediate_list = true;
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  Gemma3n g;
  g.mlp = mlp_widths(cfg, a.num_layers);
  a.intermediate_size = g.mlp.front();
  g.per_layer_input = cfg.dim_or("hidden_size_per_layer_input", 256);
  g.per_layer_vocab = cfg.dim_or("vocab_size_per_layer_input", 262144);
  g.altup = cfg.dim_or("altup_num_inputs", 4);
  if (g.altup < 2 || g.altup > 64) cfg.fail("altup_num_inputs", "must be from 2 to 64");
  g.laurel_rank = cfg.dim_or("laurel_rank", 64);
  const uint64_t shared = cfg.count_or("num_kv_shared_layers", 15);
  if (shared >= a.num_layers) cfg.fail("num_kv_shared_layers", "must be fewer than num_hidden_layers");
  g.first_shared = a.num_layers - shared;
  return g;
}

// Stored by the checkpoints, dropped by transformers on load: a KV-shared layer's own keys and values.
void shared_layer_extras(ModelTemplate& t, const std::string& p) {
  const ArchitectureRecord& a = t.arch;
  const size_t first = t.tensors.size();
  blocks::linear(t, p + "k_proj", a.hidden_size, a.num_key_value_heads * a.head_dim, false);
  blocks::linear(t, p + "v_proj", a.hidden_size, a.num_key_value_heads * a.head_dim, false);
  blocks::norm(t, p + "k_norm", a.head_dim, false);
  for (size_t i = first; i < t.tensors.size(); ++i) t.tensors[i].kind = TensorKind::Extra;
  for (const char* module : {"k_proj.", "v_proj.", "k_norm."})
    t.known_extras.push_back({p + module,
                              "keys and values of a KV-shared layer (num_kv_shared_layers): "
                              "transformers drops them on load"});
}

void gemma3n_layer(ModelTemplate& t, const std::string& p, const Gemma3n& g, uint64_t i) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, width = a.num_attention_heads * a.head_dim;
  blocks::linear(t, p + "self_attn.q_proj", h, width, false);
  blocks::norm(t, p + "self_attn.q_norm", a.head_dim, false);
  if (i < g.first_shared) {
    blocks::linear(t, p + "self_attn.k_proj", h, a.num_key_value_heads * a.head_dim, false);
    blocks::linear(t, p + "self_attn.v_proj", h, a.num_key_value_heads * a.head_dim, false);
    blocks::norm(t, p + "self_attn.k_norm", a.head_dim, false);
  } else {
    shared_layer_extras(t, p + "self_attn.");
  }
  blocks::linear(t, p + "self_attn.o_proj", width, h, false);
  blocks::gated_mlp(t, p + "mlp", h, g.mlp[i]);
  for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                        "post_feedforward_layernorm"})
    blocks::norm(t, p + n, h, false);
  // AltUp: a bare scale parameter, the coefficient predictors and the router over the copies.
  t.add(p + "altup.correct_output_scale", {h});
  blocks::linear(t, p + "altup.correction_coefs", g.altup, g.altup, false);
  blocks::linear(t, p + "altup.prediction_coefs", g.altup, g.altup * g.altup, false);
  blocks::linear(t, p + "altup.modality_router", h, g.altup, false);
  blocks::norm(t, p + "altup.router_norm", h, false);
  blocks::linear(t, p + "laurel.linear_left", h, g.laurel_rank, false);
  blocks::linear(t, p + "laurel.linear_right", g.laurel_rank, h, false);
  blocks::norm(t, p + "laurel.post_laurel_norm", h, false);
  blocks::linear(t, p + "per_layer_input_gate", h, g.per_layer_input, false);
  blocks::linear(t, p + "per_layer_projection", g.per_layer_input, h, false);
  blocks::norm(t, p + "post_per_layer_input_norm", h, false);
}

// Gemma3nTextModel under `root` ("model." alone, "model.language_model." in the composite), without a head.
void gemma3n_text_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& root) {
  const Gemma3n g = read_gemma3n(cfg, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, packed = a.num_layers * g.per_layer_input;
  const std::vector<uint64_t> windows =
      interleaved_windows(cfg, a.num_layers, cfg.count_or("sliding_window", 512), 5);
  token_embedding(t, root + "embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, root + "layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    gemma3n_layer(t, root + "layers." + std::to_string(i) + ".", g, i);
    LayerSpec l = attention_layer(a, windows[i], Ffn::Dense);
    l.attention.shares_cache = i >= g.first_shared;
    l.ffn.intermediate = g.mlp[i];
    stack.layers.push_back(l);
  }
  blocks::norm(t, root + "norm", h, false);
  blocks::embedding(t, root + "embed_tokens_per_layer.weight", g.per_layer_vocab, packed);
  blocks::linear(t, root + "per_layer_model_projection", h, packed, false);
  blocks::norm(t, root + "per_layer_projection_norm", g.per_layer_input, false);
  for (const std::string& list : {root + "altup_projections.", root + "altup_unembed_projections."})
    for (uint64_t j = 0; j + 1 < g.altup; ++j) blocks::linear(t, list + std::to_string(j), h, h, false);
}

void build_gemma3n_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma3nForCausalLM";
  gemma3n_text_model(cfg, t, "model.");
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

// Gemma3nMultimodalEmbedder: a table of the modality's own vocab_size tokens (hard tokens) beside the
// tower's features (soft tokens), each RMSNormed, projected to the text width; its last RMSNorm has no
// weight.
void multimodal_embedder(ModelTemplate& t, const std::string& p, const ModelConfig& m, uint64_t width,
                         uint64_t text_hidden) {
  blocks::embedding(t, p + "embedding.weight", m.dim_or("vocab_size", 128), width);
  blocks::norm(t, p + "hard_embedding_norm", width, false);
  blocks::norm(t, p + "soft_embedding_norm", width, false);
  blocks::linear(t, p + "embedding_projection", width, text_hidden, false);
}

// Gemma3nForConditionalGeneration: the text model beside its vision and audio towers, which Gemma3nConfig
// builds with their defaults when config.json gives none. The top-level tie_word_embeddings ties the head.
void build_gemma3n(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma3nForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const ModelConfig vision = sub_or_empty(cfg, "vision_config"), audio = sub_or_empty(cfg, "audio_config");
  t.arch.model_type = text.string_or("model_type", "gemma3n_text");
  const uint64_t image_width = mobilenet_v5_tower(vision, "model.vision_tower.timm_model.", t);
  gemma3n_text_model(text, t, "model.language_model.");
  const uint64_t audio_width = gemma3n_audio_tower(audio, "model.audio_tower.", t);
  multimodal_embedder(t, "model.embed_vision.", vision, image_width, t.arch.hidden_size);
  record_projector(t, "model.embed_vision");
  multimodal_embedder(t, "model.embed_audio.", audio, audio_width, t.arch.hidden_size);
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

constexpr std::array kGemma3nFamilies{FamilyBuilder{"gemma3n_text", build_gemma3n_text},
                                      FamilyBuilder{"gemma3n", build_gemma3n}};

}  // namespace

std::span<const FamilyBuilder> gemma3n() {
  return kGemma3nFamilies;
}

}  // namespace ma::families
