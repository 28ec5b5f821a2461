// Muse Glimmer (muse_glimmer, MuseGlimmerForConditionalGeneration; muse_glimmer_text, MuseGlimmerTextModel):
// a Gemma-2-style decoder (four zero-centred RMSNorms per layer around attention and MLP) whose attention has
// a weight-less q/k RMSNorm and a sigmoid gate on every output element (self_attn.gate_proj, heads x head_dim
// wide), a token embedding followed by a weight-less RMSNorm, and a final RMSNorm with a weight. Every fourth
// layer counted back from the last attends fully, the others over sliding_window tokens.
// The vision tower is MoonViT-like: a bias-free linear patch embedding over patch_temporal frames of
// 3 x patch_size^2 pixels, a learned pos_emb_height x pos_emb_width position table, ln_pre, LayerNorm layers
// with biased q/k/v and proj, ln_post; merge_size^2 patches are shuffled into one out_hidden_size token, then
// the adapter (fc1, fc2, no biases), a projection to the text width and a weight-less RMSNorm.
// Its checkpoints keep transformers' names (no conversion mapping exists for the type).
#include <optional>
#include <string>
#include <vector>

#include "core/checked.h"
#include "core/error.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vlm_2026.h"

namespace ma::families {
namespace {

// MuseGlimmerTextModel under `root` ("model.language_model.", or "" for the standalone text model): fills the
// record's language-model dimensions.
void text_model(const ModelConfig& text, const std::string& root, ModelTemplate& t) {
  DecoderDefaults dd;  // MuseGlimmerTextConfig's
  dd.vocab_size = 202048;
  dd.hidden_size = 6656;
  dd.intermediate_size = 19968;
  dd.num_hidden_layers = 52;
  dd.num_attention_heads = 32;
  dd.num_key_value_heads = 2;
  dd.head_dim = 128;
  dd.max_position_embeddings = 131072;
  read_decoder_dims(text, dd, t);
  ArchitectureRecord& a = t.arch;
  // MuseGlimmerTextConfig.validate_architecture refuses it, although head_dim is set apart.
  if (a.hidden_size % a.num_attention_heads != 0)
    text.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(a.hidden_size) + ")");
  const uint64_t layers = a.num_layers, window = window_or_none(text, 2048);
  std::vector<std::string> types = text.strings("layer_types");
  if (!types.empty()) text.check_layer_list("layer_types", types.size());
  const bool bias = text.flag_or("attention_bias", false);
  const uint64_t h = a.hidden_size, q = a.num_attention_heads * a.head_dim,
                 kv = a.num_key_value_heads * a.head_dim;
  blocks::embedding(t, root + "embed_tokens.weight", a.vocab_size, h);  // its embed_norm has no weight
  StackSpec& stack = a.add_stack(StackRole::Decoder, root + "layers");
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = root + "layers." + std::to_string(i) + ".";
    bool sliding = (layers - 1 - i) % 4 != 0;
    if (!types.empty()) {
      if (types[i] != "sliding_attention" && types[i] != "full_attention")
        text.fail("layer_types",
                  "entries must be sliding_attention or full_attention, not \"" + printable(types[i]) + "\"");
      sliding = types[i] == "sliding_attention";
    }
    blocks::linear(t, p + "self_attn.q_proj", h, q, bias);
    blocks::linear(t, p + "self_attn.k_proj", h, kv, bias);
    blocks::linear(t, p + "self_attn.v_proj", h, kv, bias);
    blocks::linear(t, p + "self_attn.o_proj", q, h, bias);
    blocks::linear(t, p + "self_attn.gate_proj", h, q, false);  // the q/k norm after it has no weight
    blocks::linear(t, p + "mlp.gate_proj", h, a.intermediate_size, false);
    blocks::linear(t, p + "mlp.up_proj", h, a.intermediate_size, false);
    blocks::linear(t, p + "mlp.down_proj", a.intermediate_size, h, false);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                          "post_feedforward_layernorm"})
      blocks::norm(t, p + n, h, false);
    stack.layers.push_back(attention_layer(a, sliding ? window : 0));
  }
  blocks::norm(t, root + "norm", h, false);
}

// MuseGlimmerVisionModel under `prefix` ("model.vision_tower.").
void vision_tower(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  const uint64_t hidden = v.dim_or("hidden_size", 1536), inter = v.dim_or("intermediate_size", 8960);
  const uint64_t layers = v.layers_or("num_hidden_layers", 50), heads = v.dim_or("num_attention_heads", 16);
  split_heads(v, "num_attention_heads", hidden, heads);
  const uint64_t patch = v.dim_or("patch_size", 14), frames = v.dim_or("patch_temporal", 2);
  const uint64_t rows = v.dim_or("pos_emb_height", 32), cols = v.dim_or("pos_emb_width", 32);
  const std::optional<uint64_t> pixels = checked_mul(frames * 3, patch * patch);  // each at most 2^26
  if (!pixels || *pixels > ModelConfig::kMaxValue)
    v.fail("patch_size", "with patch_temporal makes a patch of more than 2^26 values");
  t.add(prefix + "patch_embedder.patch_embedding.weight", {hidden, *pixels});
  blocks::embedding(t, prefix + "patch_embedder.position_embedding_table.weight", rows * cols, hidden);
  blocks::norm(t, prefix + "ln_pre", hidden, true);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string p = prefix + "layers." + std::to_string(i) + ".";
    blocks::norm(t, p + "norm1", hidden, true);
    blocks::norm(t, p + "norm2", hidden, true);
    for (const char* n : {"attn.proj", "attn.q_proj", "attn.k_proj", "attn.v_proj"})
      blocks::linear(t, p + n, hidden, hidden, true);
    blocks::linear(t, p + "mlp.fc1", hidden, inter, true);
    blocks::linear(t, p + "mlp.fc2", inter, hidden, true);
  }
  blocks::norm(t, prefix + "ln_post", hidden, true);
  // The position table is resampled to each image's grid: no image size bounds the tower.
  record_vision_tower(t, prefix + "layers", hidden, layers, heads, hidden / heads, inter, patch, 0);
}

}  // namespace

// The standalone text model: transformers maps muse_glimmer_text to MuseGlimmerTextModel only (no head).
void build_muse_glimmer_text(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MuseGlimmerTextModel");
  supported_task(cfg, cls, "MuseGlimmerText", {"Model"});
  t.arch.architecture = cls;
  text_model(cfg, "", t);
  t.arch.tie_word_embeddings = false;
}

void build_muse_glimmer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MuseGlimmerForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "MuseGlimmer", {"ForConditionalGeneration", "Model"});
  const bool head = task == "ForConditionalGeneration";
  const std::string root = head ? "model." : "";
  t.arch.architecture = cls;
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  vision_tower(vision, root + "vision_tower.", t);
  text_model(sub_or_empty(cfg, "text_config"), root + "language_model.", t);
  t.arch.model_type = "muse_glimmer_text";
  const uint64_t merged = cfg.dim_or("out_hidden_size", 6144),
                 mid = cfg.dim_or("projector_hidden_size", 4096);
  blocks::linear(t, root + "vision_adapter.fc1", merged, mid, false);
  blocks::linear(t, root + "vision_adapter.fc2", mid, mid, false);
  blocks::linear(t, root + "vision_projection", mid, t.arch.hidden_size, false);  // then a weight-less norm
  record_projector(t, root + "vision_adapter");
  // Only the top-level flag ties the head (MuseGlimmerConfig has none: untied by default).
  t.arch.tie_word_embeddings = head && cfg.flag_or("tie_word_embeddings", false);
  if (head) lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

}  // namespace ma::families
