// ViTDet (VitDetModel, VitDetBackbone): a plain ViT without [CLS], pooler or final norm, kept in (batch,
// channels, height, width) layout. Its layers fuse q/k/v into one qkv Linear, may attend inside windows, may
// carry decomposed relative positions (rel_pos_h / rel_pos_w, sized by the window or by image_size /
// patch_size) and may end in a bottleneck residual block of three convolutions. VitDetConfig's defaults are
// ViT-base's at 224 pixels in 16-pixel patches, with absolute positions only.
#include <algorithm>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detection_seg.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// VitDetLayer's MLP width: int(hidden_size * mlp_ratio), a float ratio allowed.
uint64_t vitdet_mlp_width(const ModelConfig& cfg, uint64_t hidden) {
  const double ratio = cfg.number_or("mlp_ratio", 4);
  const double width = static_cast<double>(hidden) * ratio;
  if (!(width >= 1)) cfg.fail("mlp_ratio", "must make the MLP at least one feature wide");
  return static_cast<uint64_t>(width);
}

bool vitdet_listed(const std::vector<int64_t>& indices, uint64_t layer) {
  return std::find(indices.begin(), indices.end(), static_cast<int64_t>(layer)) != indices.end();
}

// VitDetResBottleneckBlock: bias-free 1x1, 3x3 and 1x1 convolutions (hidden -> hidden / 2 -> hidden), each
// followed by VitDetLayerNorm, a channel LayerNorm with weight and bias.
void vitdet_residual_block(ModelTemplate& t, const std::string& p, uint64_t h) {
  const uint64_t b = h / 2;
  t.add(p + "conv1.weight", {b, h, 1, 1});
  blocks::norm(t, p + "norm1", b, true);
  t.add(p + "conv2.weight", {b, b, 3, 3});
  blocks::norm(t, p + "norm2", b, true);
  t.add(p + "conv3.weight", {h, b, 1, 1});
  blocks::norm(t, p + "norm3", h, true);
}

}  // namespace

uint64_t vitdet_body(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                     ModelTemplate& t) {
  read_base_encoder_record(cfg, cls, t);  // VitDetConfig: 768 wide, 12 layers of 12 heads
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, head_dim = a.head_dim, ffn = vitdet_mlp_width(cfg, h);
  a.intermediate_size = ffn;
  const auto patch = vit_pair(cfg, "patch_size", 16);
  // The absolute positions are sized by pretrain_image_size, the relative ones by image_size.
  const auto pretrain = vit_pair(cfg, "pretrain_image_size", 224), image = vit_pair(cfg, "image_size", 224);
  if (patch.first > pretrain.first || patch.second > pretrain.second)
    cfg.fail("patch_size", "must not exceed pretrain_image_size");
  const uint64_t channels = cfg.dim_or("num_channels", 3);
  const bool qkv_bias = cfg.flag_or("qkv_bias", true);
  const bool relative = cfg.flag_or("use_relative_position_embeddings", false);
  const uint64_t window = cfg.count_or("window_size", 0);
  const std::vector<int64_t> windowed = cfg.ints("window_block_indices");
  const std::vector<int64_t> residual = cfg.ints("residual_block_indices");
  // A global layer's relative tables span the whole patch grid: 2 * (image_size // patch_size) - 1 rows.
  if (relative && (patch.first > image.first || patch.second > image.second))
    cfg.fail("patch_size", "must not exceed image_size (the relative position tables' span)");

  // VitDetEmbeddings registers position_embeddings (with a row for a class token it never uses) before
  // its projection.
  const std::string e = prefix + "embeddings.";
  if (cfg.flag_or("use_absolute_position_embeddings", true)) {
    const uint64_t positions = (pretrain.first / patch.first) * (pretrain.second / patch.second) + 1;
    a.max_position_embeddings = positions;
    t.add(e + "position_embeddings", {1, positions, h});
  }
  t.add(e + "projection.weight", {h, channels, patch.first, patch.second});
  t.add(e + "projection.bias", {h});

  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  encoder.patch_size = patch.first;
  encoder.image_size = pretrain.first;
  LayerSpec spec = attention_dense_layer();
  spec.attention.heads = spec.attention.kv_heads = a.num_attention_heads;
  spec.attention.head_dim = head_dim;
  spec.ffn.intermediate = ffn;
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = encoder.path + "." + std::to_string(i) + ".";
    blocks::norm(t, p + "norm1", h, true);
    // VitDetAttention's own rel_pos_h / rel_pos_w come before its qkv and proj modules in state_dict.
    if (relative) {
      const bool in_window = window > 0 && vitdet_listed(windowed, i);
      const uint64_t rows_h = in_window ? window : image.first / patch.first;
      const uint64_t rows_w = in_window ? window : image.second / patch.second;
      t.add(p + "attention.rel_pos_h", {2 * rows_h - 1, head_dim});
      t.add(p + "attention.rel_pos_w", {2 * rows_w - 1, head_dim});
    }
    blocks::linear(t, p + "attention.qkv", h, 3 * h, qkv_bias);
    blocks::linear(t, p + "attention.proj", h, h, true);
    blocks::norm(t, p + "norm2", h, true);
    blocks::linear(t, p + "mlp.fc1", h, ffn, true);
    blocks::linear(t, p + "mlp.fc2", ffn, h, true);
    if (vitdet_listed(residual, i)) vitdet_residual_block(t, p + "residual.", h);
    encoder.layers.push_back(spec);
  }
  return h;
}

void build_vitdet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VitDetModel");
  supported_task(cfg, cls, "VitDet", {"Model", "Backbone"});
  // Both classes hold embeddings and encoder at the top level; the backbone only picks its feature maps.
  vitdet_body(cfg, cls, "", t);
}

}  // namespace ma::families
