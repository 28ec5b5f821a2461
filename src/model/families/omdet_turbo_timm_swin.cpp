// timm's Swin Transformer as OmDet-Turbo's TimmBackbone builds it (use_timm_backbone, the config's default):
// timm.create_model(backbone, features_only=True, out_indices=..., img_size=..., always_partition=...).
// timm's features_only wrapper (FeatureListNet, flatten_sequential) keeps the model's top-level modules up to
// the last stage handed on, renamed patch_embed, layers_0, layers_1 ...: the final norm and the head are
// gone. timm's layout differs from transformers' Swin: each stage opens with the patch merging of the
// previous one's output (layers_N.downsample, none in stage 0), the attention is one fused qkv linear, and
// its relative-position table is a parameter of the attention module itself, registered before qkv (its index
// and the shifted-window masks are non-persistent buffers).
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// The timm Swin variants by name (timm/models/swin_transformer.py's model_args): stem width, window, depth
// and heads per stage.
struct OmdetTimmSwinVariant {
  std::string_view name;
  uint64_t embed, window;
  std::array<uint64_t, 4> depths, heads;
};

constexpr std::array kOmdetTimmSwins{
    OmdetTimmSwinVariant{"swin_tiny_patch4_window7_224", 96, 7, {2, 2, 6, 2}, {3, 6, 12, 24}},
    OmdetTimmSwinVariant{"swin_small_patch4_window7_224", 96, 7, {2, 2, 18, 2}, {3, 6, 12, 24}},
    OmdetTimmSwinVariant{"swin_base_patch4_window7_224", 128, 7, {2, 2, 18, 2}, {4, 8, 16, 32}},
    OmdetTimmSwinVariant{"swin_base_patch4_window12_384", 128, 12, {2, 2, 18, 2}, {4, 8, 16, 32}},
    OmdetTimmSwinVariant{"swin_large_patch4_window7_224", 192, 7, {2, 2, 18, 2}, {6, 12, 24, 48}},
    OmdetTimmSwinVariant{"swin_large_patch4_window12_384", 192, 12, {2, 2, 18, 2}, {6, 12, 24, 48}},
};

// One SwinTransformerBlock under `p`: norm1, attn (relative_position_bias_table, qkv, proj), norm2, mlp.
void omdet_timm_swin_block(ModelTemplate& t, const std::string& p, uint64_t dim, uint64_t heads,
                           uint64_t window) {
  blocks::norm(t, p + "norm1", dim, true);
  t.add(p + "attn.relative_position_bias_table", {(2 * window - 1) * (2 * window - 1), heads});
  blocks::linear(t, p + "attn.qkv", dim, 3 * dim, true);
  blocks::linear(t, p + "attn.proj", dim, dim, true);
  blocks::norm(t, p + "norm2", dim, true);
  blocks::linear(t, p + "mlp.fc1", dim, 4 * dim, true);  // mlp_ratio 4 in every variant
  blocks::linear(t, p + "mlp.fc2", 4 * dim, dim, true);
}

}  // namespace

std::vector<uint64_t> omdet_timm_swin_backbone(const ModelConfig& cfg, const std::string& name,
                                               const std::vector<uint64_t>& out_indices, uint64_t image,
                                               bool always_partition, const std::string& prefix,
                                               ModelTemplate& t) {
  const OmdetTimmSwinVariant* v = nullptr;
  for (const OmdetTimmSwinVariant& s : kOmdetTimmSwins)
    if (s.name == name) v = &s;
  if (v == nullptr) unsupported(cfg, "OmDet-Turbo with the timm backbone " + name);
  uint64_t last = 0;
  for (const uint64_t i : out_indices) {
    if (i > 3) cfg.fail("backbone", "hands on timm Swin stages 0 to 3 only");
    last = std::max(last, i);
  }
  // PatchEmbed: a biased 4 x 4 stride-4 convolution and a LayerNorm.
  blocks::conv2d(t, prefix + "patch_embed.proj", 3, v->embed, 4);
  blocks::norm(t, prefix + "patch_embed.norm", v->embed, true);
  uint64_t resolution = image / 4;
  for (uint64_t s = 0; s <= last; ++s) {
    const std::string stage = prefix + "layers_" + std::to_string(s) + ".";
    const uint64_t dim = v->embed << s;
    if (s > 0) {
      // PatchMerging: 2 x 2 neighbours concatenated (4 x the previous width), normed, reduced without bias.
      blocks::norm(t, stage + "downsample.norm", 2 * dim, true);
      blocks::linear(t, stage + "downsample.reduction", 2 * dim, dim, false);
      resolution /= 2;
    }
    // Without always_partition timm shrinks the window to a grid smaller than it (a smaller bias table).
    const uint64_t window = !always_partition && resolution < v->window ? resolution : v->window;
    if (window == 0) cfg.fail("image_size", "leaves a timm Swin stage without a single patch");
    for (uint64_t b = 0; b < v->depths[s]; ++b)
      omdet_timm_swin_block(t, stage + "blocks." + std::to_string(b) + ".", dim, v->heads[s], window);
  }
  std::vector<uint64_t> channels;
  for (const uint64_t i : out_indices) channels.push_back(v->embed << i);
  return channels;
}

}  // namespace ma::families
