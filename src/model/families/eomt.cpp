// EoMT, the Encoder-only Mask Transformer (model_type eomt: EomtForUniversalSegmentation;
// tue-mps/{coco,ade20k,cityscapes}_{panoptic,semantic,instance}_eomt_{small,base,large,giant}_*): a DINOv2
// ViT with register tokens whose last num_blocks layers also carry num_queries learned queries; a shared
// LayerNorm, a mask MLP over the queries, transposed-convolution upscaling of the patch tokens and a class
// head predict masks from those layers on. EomtConfig's defaults are coco_panoptic_eomt_large_640's.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/seg_b.h"
#include "model/families/vision_encoders.h"

namespace ma::families {

void build_eomt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "EomtForUniversalSegmentation");
  supported_task(cfg, cls, "Eomt", {"ForUniversalSegmentation"});
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = cfg.dim_or("hidden_size", 1024);
  a.num_layers = cfg.layers_or("num_hidden_layers", 24, 0);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 16);
  a.head_dim = split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
  const uint64_t h = a.hidden_size;
  const bool swiglu = cfg.flag_or("use_swiglu_ffn", false);
  a.intermediate_size = dinov2_mlp_width(cfg, h);
  // The position table covers image_size / patch_size squared patches (no interpolation: EoMT refuses it).
  const uint64_t image = cfg.dim_or("image_size", 640);
  const uint64_t patch = cfg.dim_or("patch_size", 16);
  if (patch > image) cfg.fail("patch_size", "must not exceed image_size (" + std::to_string(image) + ")");
  const uint64_t patches = (image / patch) * (image / patch);
  a.max_position_embeddings = patches;
  const uint64_t labels = num_labels(cfg);

  // The model's own persistent buffer comes first in state_dict: a masked-attention probability per block.
  t.add("attn_mask_probs", {cfg.dim_or("num_blocks", 4)}).kind = TensorKind::Buffer;
  // EomtEmbeddings: its own cls_token and register_tokens, then the patch projection and an nn.Embedding of
  // positions (position_ids is a non-persistent buffer).
  t.add("embeddings.cls_token", {1, 1, h});
  t.add("embeddings.register_tokens", {1, cfg.count_or("num_register_tokens", 4), h});
  t.add("embeddings.patch_embeddings.projection.weight", {h, cfg.dim_or("num_channels", 3), patch, patch});
  t.add("embeddings.patch_embeddings.projection.bias", {h});
  blocks::embedding(t, "embeddings.position_embeddings.weight", patches, h);
  blocks::norm(t, "layernorm", h, true);
  blocks::embedding(t, "query.weight", cfg.dim_or("num_queries", 200), h);
  StackSpec& s = a.add_stack(StackRole::Encoder, "layers", h);
  s.patch_size = patch;
  s.image_size = image;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    // EomtLayer: Dinov2Layer with SigLIP's attention.
    dinov2_layer(t, "layers." + std::to_string(i) + ".", h, a.intermediate_size, swiglu,
                 Dinov2AttentionNames::Siglip);
    LayerSpec l;
    l.ffn.gated = swiglu;
    s.layers.push_back(l);
  }
  // EomtScaleBlock: per block a stride-2 ConvTranspose2d (weight [in, out, 2, 2]), a bias-free depthwise
  // 3 x 3 Conv2d and a channels-first LayerNorm.
  for (uint64_t i = 0; i < cfg.count_or("num_upscale_blocks", 2); ++i) {
    const std::string p = "upscale_block.block." + std::to_string(i) + ".";
    t.add(p + "conv1.weight", {h, h, 2, 2});
    t.add(p + "conv1.bias", {h});
    t.add(p + "conv2.weight", {h, 1, 3, 3});
    blocks::norm(t, p + "layernorm2d", h, true);
  }
  for (const char* fc : {"fc1", "fc2", "fc3"}) blocks::linear(t, std::string("mask_head.") + fc, h, h, true);
  blocks::linear(t, "class_predictor", h, labels + 1, true);  // + 1: the "no object" class
  // EomtLoss (Mask2FormerLoss): the class weights as a persistent buffer.
  t.add("criterion.empty_weight", {labels + 1}).kind = TensorKind::Buffer;

  a.norm = NormKind::LayerNorm;
  a.activation = cfg.string_or("hidden_act", "gelu");
  a.position = PositionKind::Learned;
  a.attention_bias = a.mlp_bias = true;
}

}  // namespace ma::families
