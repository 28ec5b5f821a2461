// Pix2Struct (pix2struct: Pix2StructForConditionalGeneration) and its two halves on their own
// (pix2struct_vision_model: Pix2StructVisionModel, pix2struct_text_model: Pix2StructTextModel). The image
// encoder reads variable-resolution patches (a linear projection of each flattened 16 x 16 x 3 patch, plus a
// learned row and a learned column embedding) through T5-style layers: bias-free attention, a gated-GELU MLP
// and RMS norms without bias. The decoder is T5's: relative position buckets in its first layer, then
// self-attention, cross-attention to the patches and the gated MLP in every layer, and an LM head that only
// the composite config's tie_word_embeddings ties (false by default, and in every released checkpoint).
#include <cstdint>
#include <string>
#include <string_view>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/ocr_vlms.h"

namespace ma::families {
namespace {

// Pix2StructVisionConfig's fields (its defaults are pix2struct-base's tower).
struct Pix2StructVision {
  uint64_t hidden = 768, patch_values = 768, d_ff = 2048, d_kv = 64, layers = 12, heads = 12, rows = 4096;
};

Pix2StructVision read_pix2struct_vision(const ModelConfig& v) {
  Pix2StructVision d;
  d.hidden = v.dim_or("hidden_size", d.hidden);
  d.patch_values = v.dim_or("patch_embed_hidden_size", d.patch_values);
  d.d_ff = v.dim_or("d_ff", d.d_ff);
  d.d_kv = v.dim_or("d_kv", d.d_kv);
  d.layers = v.layers_or("num_hidden_layers", d.layers, 0);
  d.heads = v.dim_or("num_attention_heads", d.heads);
  d.rows = v.dim_or("seq_len", d.rows);  // rows (and columns) of patches the embedders index
  return d;
}

// Pix2StructVisionModel under `p`; records it as a vision stack.
void pix2struct_vision_model(ModelTemplate& t, const Pix2StructVision& d, const std::string& p) {
  const uint64_t h = d.hidden, inner = d.heads * d.d_kv;
  blocks::linear(t, p + "embeddings.patch_projection", d.patch_values, h, true);
  blocks::embedding(t, p + "embeddings.row_embedder.weight", d.rows, h);
  blocks::embedding(t, p + "embeddings.column_embedder.weight", d.rows, h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    // Pix2StructVisionLayer registers attention, mlp, then its two norms (post-MLP one first).
    const std::string l = p + "encoder.layer." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value"})
      blocks::linear(t, l + "attention." + proj, h, inner, false);
    blocks::linear(t, l + "attention.output", inner, h, false);
    blocks::gated_mlp(t, l + "mlp", h, d.d_ff, false, "wi_0", "wi_1", "wo");
    blocks::norm(t, l + "pre_mlp_layer_norm", h, false);
    blocks::norm(t, l + "pre_attention_layer_norm", h, false);
  }
  blocks::norm(t, p + "layernorm", h, false);
  // Patches of 16 x 16 pixels by default (the image processor's; 768 = 3 x 16 x 16 values), as many as
  // max_patches allows: no fixed image size.
  record_vision_tower(t, p + "encoder.layer", h, d.layers, d.heads, d.d_kv, d.d_ff, 16, 0);
  StackSpec& tower = t.arch.stacks.back();
  for (LayerSpec& l : tower.layers) l.ffn.gated = true;
}

// Pix2StructTextConfig's fields; its attribute_map lets config.json spell them T5's or BERT's way.
struct Pix2StructText {
  uint64_t vocab = 50244, hidden = 768, d_kv = 64, d_ff = 2048, layers = 12, heads = 12, buckets = 32;
};

Pix2StructText read_pix2struct_text(const ModelConfig& c) {
  Pix2StructText d;
  d.vocab = c.dim_or("vocab_size", d.vocab);
  d.hidden = c.dim_or("hidden_size", d.hidden);
  d.d_kv = c.dim_or("d_kv", d.d_kv);
  d.d_ff = c.dim_or("d_ff", d.d_ff);
  d.layers = c.has("num_layers") ? c.layers_or("num_layers", d.layers, 0)
                                 : c.layers_or("num_hidden_layers", d.layers, 0);
  d.heads = c.has("num_heads") ? c.dim_or("num_heads", d.heads) : c.dim_or("num_attention_heads", d.heads);
  d.buckets = c.dim_or("relative_attention_num_buckets", d.buckets);
  return d;
}

// Pix2StructTextModel under `p`, its LM head tied to the token embedding when `tied`; the record's language
// model. Every layer has its cross-attention, whose keys and values are hidden x hidden like the rest
// (Pix2StructTextAttention reads no encoder width).
void pix2struct_text_model(ModelTemplate& t, const Pix2StructText& d, const std::string& p, bool tied) {
  const uint64_t h = d.hidden;
  ArchitectureRecord& a = t.arch;
  a.hidden_size = h;
  a.num_layers = d.layers;
  a.vocab_size = d.vocab;
  a.num_attention_heads = a.num_key_value_heads = d.heads;
  a.head_dim = d.d_kv;
  a.intermediate_size = d.d_ff;
  a.tie_word_embeddings = tied;
  blocks::embedding(t, p + "embed_tokens.weight", d.vocab, h);
  StackSpec& stack = a.add_stack(StackRole::Decoder, p + "layer", h);
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = d.heads;
  spec.attention.head_dim = d.d_kv;
  spec.ffn.gated = true;
  spec.ffn.intermediate = d.d_ff;
  spec.cross_attention = spec.attention;
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string l = p + "layer." + std::to_string(i) + ".";
    for (const char* part : {"self_attention.", "encoder_decoder_attention."}) {
      // Pix2StructTextAttention: all four projections hidden x hidden, without bias.
      for (const char* proj : {"query", "key", "value", "output"})
        blocks::linear(t, l + part + "attention." + proj, h, h, false);
      // Only the first layer's self-attention owns the relative position buckets; the others reuse them.
      if (i == 0 && std::string_view(part) == "self_attention.")
        blocks::embedding(t, l + part + "attention.relative_attention_bias.weight", d.buckets, d.heads);
      blocks::norm(t, l + part + "layer_norm", h, false);
    }
    blocks::gated_mlp(t, l + "mlp.DenseReluDense", h, d.d_ff, false, "wi_0", "wi_1", "wo");
    blocks::norm(t, l + "mlp.layer_norm", h, false);
    stack.layers.push_back(spec);
  }
  blocks::norm(t, p + "final_layer_norm", h, false);
  tied_or_own(t, p + "lm_head.weight", p + "embed_tokens.weight", tied);
}

}  // namespace

void build_pix2struct(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Pix2StructForConditionalGeneration");
  supported_task(cfg, cls, "Pix2Struct", {"ForConditionalGeneration"});
  t.arch.architecture = cls;
  const ModelConfig vision = sub_or_empty(cfg, "vision_config"), text = sub_or_empty(cfg, "text_config");
  pix2struct_vision_model(t, read_pix2struct_vision(vision), "encoder.");
  // Pix2StructConfig writes its own tie_word_embeddings (default false) over text_config's.
  pix2struct_text_model(t, read_pix2struct_text(text), "decoder.", cfg.flag_or("tie_word_embeddings", false));
  t.arch.model_type = "pix2struct_text_model";
}

void build_pix2struct_vision(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Pix2StructVisionModel");
  if (cls != "Pix2StructVisionModel") unsupported(cfg, cls);
  const Pix2StructVision d = read_pix2struct_vision(cfg);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = d.hidden;
  a.num_layers = d.layers;
  a.num_attention_heads = a.num_key_value_heads = d.heads;
  a.head_dim = d.d_kv;
  a.intermediate_size = d.d_ff;
  pix2struct_vision_model(t, d, "");
  // Alone, the tower is the model's encoder.
  t.arch.stacks.back().role = StackRole::Encoder;
}

void build_pix2struct_text(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Pix2StructTextModel");
  if (cls != "Pix2StructTextModel") unsupported(cfg, cls);
  t.arch.architecture = cls;
  pix2struct_text_model(t, read_pix2struct_text(cfg), "", cfg.flag_or("tie_word_embeddings", false));
}

}  // namespace ma::families
