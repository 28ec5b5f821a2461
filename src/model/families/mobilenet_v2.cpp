// MobileNetV2 (model_type mobilenet_v2: MobileNetV2Model, MobileNetV2ForImageClassification;
// google/mobilenet_v2_1.0_224, _1.4_224, _0.75_160, _0.35_96): a stem (a 3 x 3 conv, optionally a 1 x 1
// expansion, a depthwise 3 x 3, a 1 x 1 reduction), 16 inverted residuals (1 x 1 expansion, depthwise 3 x 3,
// 1 x 1 reduction), a final 1 x 1 conv; every conv bias-free with an nn.BatchNorm2d. Widths follow
// apply_depth_multiplier (make_divisible of the rounded scaled width).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// Python's int(round(x)) of a non-negative float: halves to even, as nearbyint's default rounding does.
uint64_t mobilenet_v2_round(double x) {
  return static_cast<uint64_t>(std::nearbyint(x));
}

}  // namespace

void build_mobilenet_v2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MobileNetV2Model");
  const std::string task = supported_task(cfg, cls, "MobileNetV2", {"Model", "ForImageClassification"});
  // MobileNetV2Config's defaults are google/mobilenet_v2_1.0_224's.
  const double multiplier = cfg.number_or("depth_multiplier", 1.0);
  if (!(multiplier > 0) || multiplier > 1024)
    cfg.fail("depth_multiplier", "must be above 0 (and at most 1024)");
  const double expand_ratio = cfg.number_or("expand_ratio", 6.0);
  if (!(expand_ratio >= 0) || expand_ratio > 1024) cfg.fail("expand_ratio", "must be from 0 to 1024");
  const uint64_t divisor = cfg.dim_or("depth_divisible_by", 8);
  const uint64_t min_depth = cfg.count_or("min_depth", 8);
  const auto scaled = [&](uint64_t channels) {  // apply_depth_multiplier
    return cnn_make_divisible(
        static_cast<double>(mobilenet_v2_round(static_cast<double>(channels) * multiplier)), divisor,
        min_depth);
  };
  constexpr std::array<uint64_t, 17> kChannels{16, 24, 24, 32, 32,  32,  64,  64, 64,
                                               64, 96, 96, 96, 160, 160, 160, 320};
  std::array<uint64_t, 17> channels{};
  for (size_t i = 0; i < kChannels.size(); ++i) channels[i] = scaled(kChannels[i]);
  if (channels[0] == 0) cfg.fail("min_depth", "must leave every convolution at least one channel");

  const std::string p = task == "Model" ? "" : "mobilenet_v2.";
  const uint64_t stem = scaled(32);
  cnn_conv_norm(t, p + "conv_stem.first_conv.convolution", p + "conv_stem.first_conv.normalization",
                cfg.dim_or("num_channels", 3), stem, 3);
  if (!cfg.flag_or("first_layer_is_expansion", true))
    cnn_conv_norm(t, p + "conv_stem.expand_1x1.convolution", p + "conv_stem.expand_1x1.normalization", stem,
                  stem, 1);
  cnn_conv_norm(t, p + "conv_stem.conv_3x3.convolution", p + "conv_stem.conv_3x3.normalization", stem, stem,
                3, stem);
  cnn_conv_norm(t, p + "conv_stem.reduce_1x1.convolution", p + "conv_stem.reduce_1x1.normalization", stem,
                channels[0], 1);
  for (size_t i = 0; i + 1 < channels.size(); ++i) {
    const std::string l = p + "layer." + std::to_string(i) + ".";
    const uint64_t in = channels[i];
    const uint64_t expanded = cnn_make_divisible(
        static_cast<double>(mobilenet_v2_round(static_cast<double>(in) * expand_ratio)), divisor, min_depth);
    if (expanded == 0) cfg.fail("expand_ratio", "must leave the expansion at least one channel");
    cnn_conv_norm(t, l + "expand_1x1.convolution", l + "expand_1x1.normalization", in, expanded, 1);
    cnn_conv_norm(t, l + "conv_3x3.convolution", l + "conv_3x3.normalization", expanded, expanded, 3,
                  expanded);
    cnn_conv_norm(t, l + "reduce_1x1.convolution", l + "reduce_1x1.normalization", expanded, channels[i + 1],
                  1);
  }
  // finegrained_output keeps the last conv at 1,280 when the multiplier narrows the network.
  const uint64_t out = cfg.flag_or("finegrained_output", true) && multiplier < 1.0 ? 1280 : scaled(1280);
  cnn_conv_norm(t, p + "conv_1x1.convolution", p + "conv_1x1.normalization", channels.back(), out, 1);
  describe_cnn_backbone(cfg, cls, p + "layer", out, channels.size() - 1, t);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", out, labels, true);
}

}  // namespace ma::families
