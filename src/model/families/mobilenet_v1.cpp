// MobileNetV1 (model_type mobilenet_v1: MobileNetV1Model, MobileNetV1ForImageClassification;
// google/mobilenet_v1_1.0_224, _0.75_192): a 3 x 3 stem, then 13 depthwise-separable blocks, each two
// MobileNetV1ConvLayer entries of one flat ModuleList `layer` (a depthwise 3 x 3 conv, a pointwise 1 x 1
// conv), every conv bias-free with an nn.BatchNorm2d. Widths are int(depth * depth_multiplier), at least
// min_depth, the base depth doubling where a block strides (and at the first block).
#include <algorithm>
#include <array>
#include <string>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"

namespace ma::families {
void build_mobilenet_v1(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MobileNetV1Model");
  const std::string task = supported_task(cfg, cls, "MobileNetV1", {"Model", "ForImageClassification"});
  // MobileNetV1Config's defaults: depth_multiplier 1.0, min_depth 8 (google/mobilenet_v1_1.0_224).
  const double multiplier = cfg.number_or("depth_multiplier", 1.0);
  if (!(multiplier > 0) || multiplier > 1024)
    cfg.fail("depth_multiplier", "must be above 0 (and at most 1024)");
  const uint64_t min_depth = cfg.count_or("min_depth", 8);
  // Python's int(depth * multiplier) truncates toward zero, as the cast does for a positive double.
  const auto width = [&](uint64_t depth) {
    return std::max(static_cast<uint64_t>(static_cast<double>(depth) * multiplier), min_depth);
  };
  const std::string p = task == "Model" ? "" : "mobilenet_v1.";
  uint64_t depth = 32, out = width(depth);
  if (out == 0) cfg.fail("min_depth", "must leave every convolution at least one channel");
  cnn_conv_norm(t, p + "conv_stem.convolution", p + "conv_stem.normalization", cfg.dim_or("num_channels", 3),
                out, 3);
  constexpr std::array<uint64_t, 13> kStrides{1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1};
  for (size_t i = 0; i < kStrides.size(); ++i) {
    const uint64_t in = out;
    if (kStrides[i] == 2 || i == 0) {
      depth *= 2;
      out = width(depth);
    }
    cnn_conv_norm(t, p + "layer." + std::to_string(2 * i) + ".convolution",
                  p + "layer." + std::to_string(2 * i) + ".normalization", in, in, 3, in);  // depthwise
    cnn_conv_norm(t, p + "layer." + std::to_string(2 * i + 1) + ".convolution",
                  p + "layer." + std::to_string(2 * i + 1) + ".normalization", in, out, 1);
  }
  // The record: 26 conv layers in one list, the last one's width the features'.
  describe_cnn_backbone(cfg, cls, p + "layer", out, 2 * kStrides.size(), t);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", out, labels, true);
}

}  // namespace ma::families
