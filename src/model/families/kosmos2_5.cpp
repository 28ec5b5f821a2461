// Kosmos-2.5 (microsoft/kosmos-2.5, Kosmos2_5ForConditionalGeneration): Pix2Struct's vision encoder over
// variable-resolution pages (a linear patch projection of flattened patches plus learned row and column
// embeddings, T5-style RMSNorm layers with bias-free attention of heads x head_dim and a gated-GELU MLP), the
// Kosmos-2 image-to-text projection (latent_query_num queries attending over the projected patches and
// themselves) and Kosmos-2's decoder (kosmos_text.h) without the self-attention sub-LN but with a segment
// embedding that marks image positions. Both classes name their modules text_model.model.*, vision_model.*,
// image_to_text_projection.*; only the generation class has text_model.lm_head, tied by default.
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/kosmos_text.h"
#include "model/families/multimodal_towers.h"
#include "model/families/ocr_and_ovis.h"

namespace ma::families {
namespace {

// transformers 5 renamed Kosmos2_5VisionConfig's d_ff, d_kv and seq_len to intermediate_size, head_dim and
// max_num_patches; configs saved before carry the old names. The new name wins when both are present.
uint64_t kosmos2_5_vision_dim(const ModelConfig& v, const char* name, const char* old_name, uint64_t dflt) {
  return v.has(name) ? v.dim(name) : v.dim_or(old_name, dflt);
}

// Kosmos2_5VisionModel under `p` (Kosmos2_5VisionConfig's defaults); returns its width.
uint64_t kosmos2_5_vision_model(const ModelConfig& v, const std::string& p, ModelTemplate& t) {
  const uint64_t h = v.dim_or("hidden_size", 1536), patch_values = v.dim_or("patch_embed_hidden_size", 768);
  const uint64_t inter = kosmos2_5_vision_dim(v, "intermediate_size", "d_ff", 3968);
  const uint64_t head_dim = kosmos2_5_vision_dim(v, "head_dim", "d_kv", 64);
  const uint64_t patches = kosmos2_5_vision_dim(v, "max_num_patches", "seq_len", 4096);
  const uint64_t layers = v.layers_or("num_hidden_layers", 18), heads = v.dim_or("num_attention_heads", 24);
  blocks::linear(t, p + "embeddings.patch_projection", patch_values, h, true);
  blocks::embedding(t, p + "embeddings.row_embedder.weight", patches, h);
  blocks::embedding(t, p + "embeddings.column_embedder.weight", patches, h);
  // Heads of head_dim need not split the width: query / key / value / output map h <-> heads x head_dim.
  blocks::Attention a{.hidden = h, .heads = heads, .kv_heads = heads, .head_dim = head_dim};
  a.q = "query";
  a.k = "key";
  a.v = "value";
  a.o = "output";
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "encoder.layer." + std::to_string(i) + ".";
    blocks::attention(t, l + "attention", a);
    blocks::gated_mlp(t, l + "mlp", h, inter, false, "wi_0", "wi_1", "wo");
    blocks::norm(t, l + "pre_mlp_layer_norm", h, false);  // registered after the MLP, used before it
    blocks::norm(t, l + "pre_attention_layer_norm", h, false);
  }
  blocks::norm(t, p + "layernorm", h, false);
  // Patches of variable count and size: the record keeps no image or patch size.
  record_vision_tower(t, p + "encoder.layer", h, layers, heads, head_dim, inter, 0, 0);
  return h;
}

}  // namespace

void build_kosmos2_5(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Kosmos2_5ForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "Kosmos2_5", {"ForConditionalGeneration", "Model"});
  t.arch.architecture = cls;
  // Kosmos2_5TextConfig's defaults.
  read_kosmos_text(
      cfg, sub_or_empty(cfg, "text_config"),
      {.vocab = 108481, .positions = 4096, .embed = 1536, .layers = 24, .ffn = 6144, .heads = 16}, t);
  kosmos_text_model(
      t,
      {.inner_attn_norm = false, .segment_embeddings = true, .lm_head = task == "ForConditionalGeneration"});
  const uint64_t vision = kosmos2_5_vision_model(sub_or_empty(cfg, "vision_config"), "vision_model.", t);
  kosmos_image_to_text_projection(t, cfg.dim_or("latent_query_num", 2048), vision);
}

}  // namespace ma::families
