// ViTPose: VitPoseBackbone (model_type vitpose_backbone), ViT's layers (transformers 4's BERT-like module
// names, which it keeps) with a position for a class token it never has, a final LayerNorm and, in
// ViTPose+, a mixture-of-experts MLP; and VitPoseForPoseEstimation (model_type vitpose), that backbone under
// "backbone." and a heatmap head. VitPoseBackboneConfig's defaults are ViT-base's at 256 x 192 pixels in
// 16 x 16 patches (usyd-community/vitpose-base-simple).
#include <string>
#include <utility>

#include "model/blocks.h"
#include "model/families/depth.h"
#include "model/families/detection_seg.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// VitPoseBackboneMLP / VitPoseBackboneMoeMLP: fc1 to int(hidden_size * mlp_ratio); fc2 back to the width, or,
// with several experts, to the width less part_features, the experts (one Linear each, a ModuleList)
// supplying the last part_features channels.
void vitpose_mlp(const ModelConfig& bb, ModelTemplate& t, const std::string& p, uint64_t h,
                 uint64_t experts) {
  const double width = static_cast<double>(h) * bb.number_or("mlp_ratio", 4);
  if (!(width >= 1)) bb.fail("mlp_ratio", "must make the MLP at least one feature wide");
  const auto ffn = static_cast<uint64_t>(width);
  t.arch.intermediate_size = ffn;
  blocks::linear(t, p + "fc1", h, ffn, true);
  if (experts == 1) {
    blocks::linear(t, p + "fc2", ffn, h, true);
    return;
  }
  const uint64_t part = bb.dim_or("part_features", 256);
  if (part >= h) bb.fail("part_features", "must be below hidden_size (" + std::to_string(h) + ")");
  blocks::linear(t, p + "fc2", ffn, h - part, true);
  for (uint64_t i = 0; i < experts; ++i)
    blocks::linear(t, p + "experts." + std::to_string(i), ffn, part, true);
}

// VitPoseBackbone under `prefix`, the record filled for `cls`. Returns the width.
uint64_t vitpose_backbone_body(const ModelConfig& bb, const std::string& cls, const std::string& prefix,
                               ModelTemplate& t) {
  read_base_encoder_record(bb, cls, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  // The class defaults image_size to [256, 192] (height, width), which vit_pair's one default cannot say.
  const auto size =
      bb.has("image_size") ? vit_pair(bb, "image_size", 256) : std::pair<uint64_t, uint64_t>{256, 192};
  const auto patch = vit_pair(bb, "patch_size", 16);
  if (patch.first > size.first || patch.second > size.second)
    bb.fail("patch_size", "must not exceed image_size");
  const uint64_t channels = bb.dim_or("num_channels", 3), experts = bb.dim_or("num_experts", 1);
  const bool qkv_bias = bb.flag_or("qkv_bias", true);
  a.max_position_embeddings = (size.first / patch.first) * (size.second / patch.second) + 1;
  // VitPoseBackboneEmbeddings' own position_embeddings come before its patch_embeddings module.
  t.add(prefix + "embeddings.position_embeddings", {1, a.max_position_embeddings, h});
  t.add(prefix + "embeddings.patch_embeddings.projection.weight", {h, channels, patch.first, patch.second});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  encoder.patch_size = patch.first;
  encoder.image_size = size.first;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = encoder.path + "." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value"})
      blocks::linear(t, p + "attention.attention." + proj, h, h, qkv_bias);
    blocks::linear(t, p + "attention.output.dense", h, h, true);
    vitpose_mlp(bb, t, p + "mlp.", h, experts);
    blocks::norm(t, p + "layernorm_before", h, true);
    blocks::norm(t, p + "layernorm_after", h, true);
    LayerSpec spec = attention_dense_layer();
    spec.attention.heads = spec.attention.kv_heads = a.num_attention_heads;
    spec.attention.head_dim = a.head_dim;
    spec.ffn.intermediate = a.intermediate_size;
    encoder.layers.push_back(spec);
  }
  blocks::norm(t, prefix + "layernorm", h, true);
  return h;
}

}  // namespace

void build_vitpose_backbone(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VitPoseBackbone");
  supported_task(cfg, cls, "VitPoseBackbone", {""});
  vitpose_backbone_body(cfg, cls, "", t);
}

void build_vitpose(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VitPoseForPoseEstimation");
  supported_task(cfg, cls, "VitPose", {"ForPoseEstimation"});
  // VitPoseConfig's default backbone: VitPoseBackboneConfig(out_indices=[4]).
  const ModelConfig bb = depth_backbone_config(cfg, R"({"model_type":"vitpose_backbone","out_indices":[4]})",
                                               "vitpose_backbone");
  const uint64_t h = vitpose_backbone_body(bb, cls, "backbone.", t);
  const uint64_t labels = num_labels(cfg);  // the keypoints: 17 in the COCO checkpoints' id2label
  if (cfg.flag_or("use_simple_decoder", true)) {
    blocks::conv2d(t, "head.conv", h, labels, 3);  // VitPoseSimpleDecoder: ReLU, upsampling, one 3x3 conv
    return;
  }
  // VitPoseClassicDecoder: two bias-free ConvTranspose2d(k=4, s=2) to 256 channels (weight [in, out, k, k]),
  // each followed by nn.BatchNorm2d, then a 1x1 conv to the keypoints.
  t.add("head.deconv1.weight", {h, 256, 4, 4});
  detr_batch_norm(t, "head.batchnorm1", 256, false);
  t.add("head.deconv2.weight", {256, 256, 4, 4});
  detr_batch_norm(t, "head.batchnorm2", 256, false);
  blocks::conv2d(t, "head.conv", 256, labels, 1);
}

}  // namespace ma::families
