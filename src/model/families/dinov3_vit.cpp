// DINOv3's vision transformers (DINOv3ViTModel: facebook/dinov3-vits16 ... -vit7b16-pretrain-lvd1689m): a
// pre-norm ViT with a layer scale on both residual branches, like DINOv2, but with no position table (its
// positions are 2-D rotary, applied to the patch tokens only), register tokens beside [CLS], separate q/k/v
// projections of which the key's has no bias, and a gated MLP in its largest sizes (7B, ViT-H+, ViT-S+).
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_backbones.h"

namespace ma::families {

void build_dinov3_vit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DINOv3ViTModel");
  supported_task(cfg, cls, "DINOv3ViT", {"Model"});
  // DINOv3ViTConfig's defaults are ViT-S/16's (384 wide, 12 layers of 6 heads, a 1536-wide MLP).
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = cfg.dim_or("hidden_size", 384);
  a.num_layers = cfg.layers_or("num_hidden_layers", 12, 0);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 6);
  a.head_dim = split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
  a.intermediate_size = cfg.dim_or("intermediate_size", 1536);
  const uint64_t h = a.hidden_size, image = cfg.dim_or("image_size", 224),
                 patch = cfg.dim_or("patch_size", 16);
  if (patch > image) cfg.fail("patch_size", "must not exceed image_size (" + std::to_string(image) + ")");
  // DINOv3ViTEmbeddings' own parameters come before its patch convolution. The mask token is built whether
  // or not a checkpoint uses it; the register tokens' table exists even when there are none ([1, 0, h]).
  t.add("embeddings.cls_token", {1, 1, h});
  t.add("embeddings.mask_token", {1, 1, h});
  t.add("embeddings.register_tokens", {1, cfg.count_or("num_register_tokens", 0), h});
  t.add("embeddings.patch_embeddings.weight", {h, cfg.dim_or("num_channels", 3), patch, patch});
  t.add("embeddings.patch_embeddings.bias", {h});
  // Transformers reads only use_gated_mlp (the SwiGLU MLP of the 7B, ViT-H+ and ViT-S+ checkpoints).
  const bool gated = cfg.flag_or("use_gated_mlp", false), mlp_bias = cfg.flag_or("mlp_bias", true);
  const bool q_bias = cfg.flag_or("query_bias", true), k_bias = cfg.flag_or("key_bias", false);
  const bool v_bias = cfg.flag_or("value_bias", true), o_bias = cfg.flag_or("proj_bias", true);
  StackSpec& s = a.add_stack(StackRole::Encoder, "layer", h);
  s.patch_size = patch;
  s.image_size = image;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "layer." + std::to_string(i) + ".";
    blocks::norm(t, p + "norm1", h, true);
    // DINOv3ViTAttention registers k, v, q, then o.
    blocks::linear(t, p + "attention.k_proj", h, h, k_bias);
    blocks::linear(t, p + "attention.v_proj", h, h, v_bias);
    blocks::linear(t, p + "attention.q_proj", h, h, q_bias);
    blocks::linear(t, p + "attention.o_proj", h, h, o_bias);
    t.add(p + "layer_scale1.lambda1", {h});
    blocks::norm(t, p + "norm2", h, true);
    if (gated) {
      blocks::gated_mlp(t, p + "mlp", h, a.intermediate_size, mlp_bias);
    } else {
      blocks::linear(t, p + "mlp.up_proj", h, a.intermediate_size, mlp_bias);
      blocks::linear(t, p + "mlp.down_proj", a.intermediate_size, h, mlp_bias);
    }
    t.add(p + "layer_scale2.lambda1", {h});
    LayerSpec l;
    l.attention.heads = l.attention.kv_heads = a.num_attention_heads;
    l.attention.head_dim = a.head_dim;
    l.ffn.gated = gated;
    l.ffn.intermediate = a.intermediate_size;
    s.layers.push_back(l);
  }
  blocks::norm(t, "norm", h, true);
}

}  // namespace ma::families
