// GLM-4.1V (model_type glm4v, Glm4vForConditionalGeneration) and GLM-4.5V (glm4v_moe): a Qwen2-VL-style
// vision model whose patches are merged by a strided convolution and a gated MLP, in front of GLM-4-0414's
// decoder (four norms a layer, fused gate and up, q/k/v always biased) or GLM-4.5-Air's mixture of experts.
// Checkpoints keep the in-memory names (model.visual, model.language_model, lm_head). GLM-4.6V's own classes
// (glm46v) wrap either.
#include <array>

#include "core/error.h"
#include "model/families/decoder_llama.h"
#include "model/families/deepseek_like.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// Glm4vVisionModel under `p`: a Conv3d patch embedding over temporal_patch_size frames, an RMSNorm, learned
// positions for the (image_size / patch_size)^2 patches, `depth` blocks (RMSNorms, a bias-free proj, and an
// MLP out_hidden_size wide: the width the merged features take, not intermediate_size), a final RMSNorm, the
// downsample convolution over spatial_merge_size^2 patches, and the merger (proj, a LayerNorm, a gated MLP
// intermediate_size wide).
// GLM-OCR's tower (`ocr`) drops the learned positions and the post-conv norm, adds per-head q/k norms, biases
// its attention and MLP on attention_bias (on by default), sizes the blocks' MLP by intermediate_size and
// the merger's by out_hidden_size x in_channels.
void glm4v_vision(ModelTemplate& t, const std::string& p, const ModelConfig& v, bool ocr = false) {
  const uint64_t h = v.dim_or("hidden_size", ocr ? 1024 : 1536), depth = v.layers_or("depth", 24, 0);
  const uint64_t heads = v.dim_or(v.has("num_heads") ? "num_heads" : "num_attention_heads", ocr ? 16 : 12);
  if (h % heads != 0) v.fail("num_heads", "must divide hidden_size");
  const uint64_t out = v.dim_or("out_hidden_size", ocr ? 1536 : 4096);
  const uint64_t inter = v.dim_or("intermediate_size", ocr ? 4096 : 13696);
  const uint64_t patch = v.dim_or("patch_size", 14), image = v.dim_or("image_size", 336);
  const uint64_t frames = v.dim_or("temporal_patch_size", 2), merge = v.dim_or("spatial_merge_size", 2);
  const uint64_t channels = v.dim_or("in_channels", 3);
  if (patch > image) v.fail("patch_size", "must not exceed image_size");
  const bool bias = v.flag_or("attention_bias", ocr);
  // Registered in Glm4vVisionModel's order, not the forward's: embeddings, patch_embed, blocks, merger,
  // post_conv_layernorm, downsample, post_layernorm.
  if (!ocr)
    blocks::embedding(t, p + "embeddings.position_embedding.weight", (image / patch) * (image / patch), h);
  t.add(p + "patch_embed.proj.weight", {h, channels, frames, patch, patch});
  t.add(p + "patch_embed.proj.bias", {h});
  for (uint64_t i = 0; i < depth; ++i) {
    const std::string b = p + "blocks." + std::to_string(i) + ".";
    blocks::norm(t, b + "norm1", h, false);
    blocks::norm(t, b + "norm2", h, false);
    blocks::linear(t, b + "attn.qkv", h, 3 * h, bias);
    blocks::linear(t, b + "attn.proj", h, h, ocr && bias);
    if (ocr) {
      blocks::norm(t, b + "attn.q_norm", h / heads, false);
      blocks::norm(t, b + "attn.k_norm", h / heads, false);
    }
    blocks::gated_mlp(t, b + "mlp", h, ocr ? inter : out, ocr && bias);
  }
  blocks::linear(t, p + "merger.proj", out, out, false);
  blocks::norm(t, p + "merger.post_projection_norm", out, true);
  blocks::gated_mlp(t, p + "merger", out, ocr ? out * channels : inter);
  if (!ocr) blocks::norm(t, p + "post_conv_layernorm", h, false);
  t.add(p + "downsample.weight", {out, h, merge, merge});
  t.add(p + "downsample.bias", {out});
  blocks::norm(t, p + "post_layernorm", h, false);
  record_vision_tower(t, p + "blocks", h, depth, heads, h / heads, ocr ? inter : out, patch, ocr ? 0 : image);
  record_projector(t, p + "merger");
}

// Glm4vTextConfig's dimensions (GLM-4.1V-9B's) into t.arch, and its layers' style.
LlamaStyle read_glm4v_text(const ModelConfig& text, ModelTemplate& t) {
  DecoderDefaults d;
  d.vocab_size = 151552;
  d.intermediate_size = 13696;
  d.num_hidden_layers = 40;
  d.num_key_value_heads = 2;
  d.max_position_embeddings = 32768;
  read_decoder_dims(text, d, t);
  heads_split_hidden(text, t.arch);  // Glm4vTextAttention has no head_dim of its own
  LlamaStyle s;
  s.qkv_bias = true;  // Glm4vTextConfig has no attention_bias: q/k/v always carry one
  s.mlp = Mlp::FusedGated;
  // Glm4vTextDecoderLayer's registration order (post_attention_layernorm before post_self_attn_layernorm).
  s.layer_norms = {"input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm",
                   "post_mlp_layernorm"};
  return s;
}

void build_glm4v(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Glm4vForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  t.arch.model_type = text.string_or("model_type", "glm4v_text");
  const LlamaStyle s = read_glm4v_text(text, t);
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  glm4v_vision(t, "model.visual.", sub_or_empty(cfg, "vision_config"));
  llama_style_decoder(t, "model.language_model.", s);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
}

// GLM-4.1V's language model alone (glm4v_text): Glm4vTextModel, embed_tokens, layers and norm at the top
// level, no head.
void build_glm4v_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "Glm4vTextModel");
  t.arch.rope.emplace().type = "mrope";  // it rotates by time/height/width sections
  llama_style_decoder(t, "", read_glm4v_text(cfg, t));
}

// The vision model alone (glm4v_vision, glm4v_moe_vision: Glm4vMoeVisionConfig repeats Glm4vVisionConfig's
// defaults and Glm4vMoeVisionModel its modules), the merger included, at the top level.
void build_glm4v_vision_kind(const ModelConfig& cfg, ModelTemplate& t, const std::string& cls) {
  t.arch.architecture = sub_config_class(cfg, cls);
  glm4v_vision(t, "", cfg);
  standalone_tower_dims(t, StackRole::Vision);
}
void build_glm4v_vision(const ModelConfig& cfg, ModelTemplate& t) {
  build_glm4v_vision_kind(cfg, t, "Glm4vVisionModel");
}
// GLM-4.5V's language model alone (glm4v_moe_text): Glm4vMoeTextModel, its mixture decoder at the top level,
// no head.
void build_glm4v_moe_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = sub_config_class(cfg, "Glm4vMoeTextModel");
  t.arch.rope.emplace().type = "mrope";
  glm4v_moe_language_model(cfg, t, "", false, false);
}
void build_glm4v_moe_vision(const ModelConfig& cfg, ModelTemplate& t) {
  build_glm4v_vision_kind(cfg, t, "Glm4vMoeVisionModel");
}

// GLM-4.5V / GLM-4.6V (glm4v_moe): GLM-4.1V's vision model in front of GLM-4.5-Air's mixture of experts.
// The checkpoints keep the in-memory names and, unlike GLM-4.5-Air's, no multi-token-prediction layer.
void build_glm4v_moe(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Glm4vMoeForConditionalGeneration";
  t.arch.rope.emplace().type = "mrope";  // the language model rotates by time/height/width sections
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  t.arch.model_type = text.string_or("model_type", "glm4v_moe_text");
  glm4v_vision(t, "model.visual.", sub_or_empty(cfg, "vision_config"));
  glm4v_moe_language_model(text, t, "model.language_model.", tie_embeddings(cfg, text, false));
}

// GLM-OCR (glm_ocr): GLM-4.1V's model, smaller, its tower reshaped (glm4v_vision's `ocr`) and its language
// model's q/k/v unbiased.
void build_glm_ocr(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GlmOcrForConditionalGeneration";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  t.arch.model_type = text.string_or("model_type", "glm_ocr_text");
  DecoderDefaults d;  // GlmOcrTextConfig's
  d.vocab_size = 59392;
  d.hidden_size = 1024;
  d.intermediate_size = 4096;
  d.num_hidden_layers = 16;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 131072;
  read_decoder_dims(text, d, t);
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  glm4v_vision(t, "model.visual.", sub_or_empty(cfg, "vision_config"), true);
  LlamaStyle s;
  s.mlp = Mlp::FusedGated;
  // GlmOcrTextDecoderLayer's registration order, Glm4vTextDecoderLayer's.
  s.layer_norms = {"input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm",
                   "post_mlp_layernorm"};
  llama_style_decoder(t, "model.language_model.", s);
  lm_head(t, "model.language_model.embed_tokens.weight", t.arch);
  // Trained with multi-token prediction (num_nextn_predict_layers); a checkpoint that keeps those layers
  // stores them after the last one, and transformers builds none.
  const uint64_t mtp = text.count_or("num_nextn_predict_layers", 0);
  for (uint64_t i = 0; i < mtp && i < 8; ++i)
    t.known_extras.push_back({"model.language_model.layers." + std::to_string(t.arch.num_layers + i) + ".",
                              "multi-token-prediction layer: transformers does not build it"});
}

// GLM-4.6V's own classes (glm46v, and glmga, whose config builds the same Glm46V model): GLM-4.1V's model
// around whichever language model text_config names, GLM-4.1V's dense one by default or GLM-4.5V's mixture.
void build_glm46v(const ModelConfig& cfg, ModelTemplate& t) {
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string type = text.string_or("model_type", "glm4v_text");
  if (type == "glm4v_moe_text")
    build_glm4v_moe(cfg, t);
  else if (type == "glm4v_text")
    build_glm4v(cfg, t);
  else
    text.fail("model_type", "must be glm4v_text or glm4v_moe_text, found '" + printable(type) + "'");
  t.arch.architecture = "Glm46VForConditionalGeneration";
}

constexpr std::array kGlm4vFamilies{FamilyBuilder{"glm4v", build_glm4v},
                                    FamilyBuilder{"glm4v_moe", build_glm4v_moe},
                                    FamilyBuilder{"glm46v", build_glm46v},
                                    FamilyBuilder{"glmga", build_glm46v},
                                    FamilyBuilder{"glm_ocr", build_glm_ocr},
                                    FamilyBuilder{"glm4v_text", build_glm4v_text},
                                    FamilyBuilder{"glm4v_moe_text", build_glm4v_moe_text},
                                    FamilyBuilder{"glm4v_vision", build_glm4v_vision},
                                    FamilyBuilder{"glm4v_moe_vision", build_glm4v_moe_vision}};

}  // namespace

std::span<const FamilyBuilder> glm4v() {
  return kGlm4vFamilies;
}

}  // namespace ma::families
