// Apple's AIMv2 (apple/aimv2-{large,huge,1B,3B}-patch14-{224,336,448}, -native, and the image-text
// apple/aimv2-large-patch14-224-lit): SigLIP's vision transformer with RMSNorms for LayerNorms, a SwiGLU MLP
// and bias-free projections, an RMSNorm right after the patch convolution, and an attention-pooling head
// whose query is a learned token. Aimv2Model adds a CLIP-style causal text tower of the same layers and two
// bias-free projections compared under a learned temperature.
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vision_backbones.h"

namespace ma::families {
namespace {

struct Aimv2Dims {
  uint64_t hidden = 0, intermediate = 0, layers = 0, heads = 0;
  bool qkv_bias = false, mlp_bias = false;
};

// The fields both AIMv2 config classes share, over the class's defaults `d`.
Aimv2Dims read_aimv2_dims(const ModelConfig& c, const Aimv2Dims& d) {
  Aimv2Dims r;
  r.hidden = c.dim_or("hidden_size", d.hidden);
  r.intermediate = c.dim_or("intermediate_size", d.intermediate);
  r.layers = c.layers_or("num_hidden_layers", d.layers, 0);
  r.heads = c.dim_or("num_attention_heads", d.heads);
  split_heads(c, "num_attention_heads", r.hidden, r.heads);  // Aimv2Attention raises otherwise
  r.qkv_bias = c.flag_or("qkv_bias", false);
  r.mlp_bias = c.flag_or("mlp_bias", false);
  return r;
}

// Aimv2Encoder's layers under `path` (".N." appended): attention (k, v, q, out_proj, all biased by qkv_bias,
// out_proj included), the SwiGLU ffn, then the two RMSNorms, as Aimv2EncoderLayer registers them.
void aimv2_layers(ModelTemplate& t, const std::string& path, const Aimv2Dims& d) {
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string p = path + "." + std::to_string(i) + ".";
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      blocks::linear(t, p + "attention." + proj, d.hidden, d.hidden, d.qkv_bias);
    blocks::gated_mlp(t, p + "ffn", d.hidden, d.intermediate, d.mlp_bias);
    blocks::norm(t, p + "rms_norm1", d.hidden, false);
    blocks::norm(t, p + "rms_norm2", d.hidden, false);
  }
}

// Aimv2VisionConfig's defaults: aimv2-large-patch14-224's.
constexpr Aimv2Dims kAimv2Vision{.hidden = 1024, .intermediate = 2816, .layers = 24, .heads = 8};
// Aimv2TextConfig's defaults: aimv2-large-patch14-224-lit's text tower.
constexpr Aimv2Dims kAimv2Text{.hidden = 768, .intermediate = 2048, .layers = 12, .heads = 6};

// Aimv2VisionModel under `prefix`; returns its width and the patch and image sides it reads.
struct Aimv2VisionShape {
  Aimv2Dims dims;
  uint64_t patch = 0, image = 0;
};
Aimv2VisionShape aimv2_vision(const ModelConfig& v, const std::string& prefix, ModelTemplate& t) {
  Aimv2VisionShape s{read_aimv2_dims(v, kAimv2Vision), v.dim_or("patch_size", 14),
                     v.dim_or("image_size", 224)};
  const Aimv2Dims& d = s.dims;
  if (s.patch > s.image) v.fail("patch_size", "must not exceed image_size (" + std::to_string(s.image) + ")");
  const uint64_t side = s.image / s.patch;
  blocks::conv2d(t, prefix + "embeddings.patch_embed", v.dim_or("num_channels", 3), d.hidden, s.patch);
  blocks::norm(t, prefix + "embeddings.rms_norm", d.hidden, false);
  // Native-resolution checkpoints (is_native) compute 2-D sin-cos positions for each image: no table.
  if (!v.flag_or("is_native", false))
    blocks::embedding(t, prefix + "embeddings.position_embedding.weight", side * side, d.hidden);
  aimv2_layers(t, prefix + "encoder.layers", d);
  blocks::norm(t, prefix + "rms_norm", d.hidden, false);
  if (v.flag_or("use_head", true)) {
    // Aimv2AttentionPoolingHead: its learned query token is its own parameter, listed before its modules.
    t.add(prefix + "head.cls_token", {1, 1, d.hidden});
    blocks::linear(t, prefix + "head.k_proj", d.hidden, d.hidden, d.qkv_bias);
    blocks::linear(t, prefix + "head.v_proj", d.hidden, d.hidden, d.qkv_bias);
    blocks::linear(t, prefix + "head.output_proj", d.hidden, d.hidden, true);
  }
  return s;
}

}  // namespace

void build_aimv2_vision_model(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Aimv2VisionModel");
  supported_task(cfg, cls, "Aimv2Vision", {"Model"});
  const Aimv2VisionShape s = aimv2_vision(cfg, "", t);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = s.dims.hidden;
  a.intermediate_size = s.dims.intermediate;
  a.num_layers = s.dims.layers;
  a.num_attention_heads = a.num_key_value_heads = s.dims.heads;
  a.head_dim = s.dims.hidden / s.dims.heads;
  StackSpec& stack = a.add_stack(StackRole::Encoder, "encoder.layers", s.dims.hidden);
  stack.patch_size = s.patch;
  stack.image_size = s.image;
  LayerSpec l;
  l.attention.heads = l.attention.kv_heads = s.dims.heads;
  l.attention.head_dim = a.head_dim;
  l.ffn.intermediate = s.dims.intermediate;
  stack.layers.assign(s.dims.layers, l);
}

void build_aimv2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Aimv2Model");
  supported_task(cfg, cls, "Aimv2", {"Model"});
  t.arch.architecture = cls;
  t.add("logit_scale", {});  // the model's own 0-dimensional parameter, listed before its modules'
  const Aimv2VisionShape v = aimv2_vision(sub_or_empty(cfg, "vision_config"), "vision_model.", t);
  record_vision_tower(t, "vision_model.encoder.layers", v.dims.hidden, v.dims.layers, v.dims.heads,
                      v.dims.hidden / v.dims.heads, v.dims.intermediate, v.patch, v.image);
  // Aimv2TextModel: CLIP's text embeddings (token and position tables), the same layers, a final RMSNorm.
  const ModelConfig tc = sub_or_empty(cfg, "text_config");
  const Aimv2Dims d = read_aimv2_dims(tc, kAimv2Text);
  ArchitectureRecord& a = t.arch;
  a.vocab_size = tc.dim_or("vocab_size", 49408);
  a.max_position_embeddings = tc.dim_or("max_position_embeddings", 77);
  a.hidden_size = d.hidden;
  a.intermediate_size = d.intermediate;
  a.num_layers = d.layers;
  a.num_attention_heads = a.num_key_value_heads = d.heads;
  a.head_dim = d.hidden / d.heads;
  blocks::embedding(t, "text_model.embeddings.token_embedding.weight", a.vocab_size, d.hidden);
  blocks::embedding(t, "text_model.embeddings.position_embedding.weight", a.max_position_embeddings,
                    d.hidden);
  aimv2_layers(t, "text_model.encoder.layers", d);
  blocks::norm(t, "text_model.rms_norm", d.hidden, false);
  StackSpec& text = a.add_stack(StackRole::Encoder, "text_model.encoder.layers", d.hidden);
  LayerSpec l;
  l.attention.heads = l.attention.kv_heads = d.heads;
  l.attention.head_dim = a.head_dim;
  l.ffn.intermediate = d.intermediate;
  text.layers.assign(d.layers, l);
  const uint64_t projection = cfg.dim_or("projection_dim", 512);
  blocks::linear(t, "visual_projection", v.dims.hidden, projection, false);
  blocks::linear(t, "text_projection", d.hidden, projection, false);
}

}  // namespace ma::families
