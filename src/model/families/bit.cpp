// BiT (model_type bit: BitModel, BitForImageClassification; google/bit-50): a ResNet v2 whose convs are
// weight-standardized (WeightStandardizedConv2d: an nn.Conv2d, weight only) and whose norms are GroupNorms
// (BitGroupNormActivation: weight and bias, no running statistics). layer_type "preactivation" (BiT's
// default) norms before each conv and once more after the last stage (bit.norm); "bottleneck" (ViT-hybrid's)
// norms after each conv, the stem and the projected shortcut too.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"

namespace ma::families {
void build_bit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BitModel");
  const std::string task = supported_task(cfg, cls, "Bit", {"Model", "ForImageClassification"});
  // BitConfig's defaults are BiT-M R50x1's (google/bit-50).
  const uint64_t embedding = cfg.dim_or("embedding_size", 64);
  const std::vector<uint64_t> widths = cfg.dims_or("hidden_sizes", {256, 512, 1024, 2048});
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {3, 4, 6, 3});
  const std::string layer_type = cfg.string_or("layer_type", "preactivation");
  if (layer_type != "preactivation" && layer_type != "bottleneck")
    cfg.fail("layer_type", "must be preactivation or bottleneck");
  const bool preact = layer_type == "preactivation";
  const uint64_t width_factor = cfg.dim_or("width_factor", 1);
  const uint64_t groups = cfg.dim_or("num_groups", 32);
  if (widths.empty()) cfg.fail("hidden_sizes", "must name at least one stage");
  if (depths.size() < widths.size()) cfg.fail("depths", "must list one depth per hidden_sizes entry");
  uint64_t blocks = 0;
  for (size_t s = 0; s < widths.size(); ++s) blocks += depths[s];
  cfg.check_layer_list("depths", blocks);
  // nn.GroupNorm refuses a width its groups do not divide.
  const auto group_norm = [&](const std::string& p, uint64_t channels) {
    if (channels % groups != 0)
      cfg.fail("num_groups", "must divide every normalized width (" + std::to_string(channels) + ")");
    blocks::norm(t, p, channels, true);
  };
  const auto conv = [&](const std::string& p, uint64_t in, uint64_t out, uint64_t kernel) {
    t.add(p + ".weight", {out, in, kernel, kernel});
  };

  const std::string p = task == "Model" ? "" : "bit.";
  conv(p + "embedder.convolution", cfg.dim_or("num_channels", 3), embedding, 7);
  if (!preact) group_norm(p + "embedder.norm", embedding);
  uint64_t in = embedding;
  for (size_t s = 0; s < widths.size(); ++s) {
    // BitEncoder: out = make_div(hidden_size * width_factor); BitStage zips depths with hidden_sizes.
    const uint64_t out = cnn_make_divisible(static_cast<double>(widths[s] * width_factor), 8, 8);
    const uint64_t mid = cnn_make_divisible(static_cast<double>(out) * 0.25, 8, 8);  // bottle_ratio 0.25
    for (uint64_t l = 0; l < depths[s]; ++l) {
      const std::string lp = p + "encoder.stages." + std::to_string(s) + ".layers." + std::to_string(l) + ".";
      // Every stage's first layer projects its shortcut (BitDownsampleConv; its norm only without
      // preactivation).
      if (l == 0) {
        conv(lp + "downsample.conv", in, out, 1);
        if (!preact) group_norm(lp + "downsample.norm", out);
      }
      if (preact) {  // norm1, conv1, norm2, conv2, norm3, conv3
        group_norm(lp + "norm1", in);
        conv(lp + "conv1", in, mid, 1);
        group_norm(lp + "norm2", mid);
        conv(lp + "conv2", mid, mid, 3);
        group_norm(lp + "norm3", mid);
        conv(lp + "conv3", mid, out, 1);
      } else {  // conv1, norm1, conv2, norm2, conv3, norm3
        conv(lp + "conv1", in, mid, 1);
        group_norm(lp + "norm1", mid);
        conv(lp + "conv2", mid, mid, 3);
        group_norm(lp + "norm2", mid);
        conv(lp + "conv3", mid, out, 1);
        group_norm(lp + "norm3", out);
      }
      in = out;
    }
  }
  // BitModel's final norm and the classifier read hidden_sizes[-1], not the width_factor-scaled width.
  if (preact) group_norm(p + "norm", widths.back());
  describe_cnn_backbone(cfg, cls, p + "encoder.stages", widths.back(), blocks, t);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "classifier.1", widths.back(), labels, true);
}

}  // namespace ma::families
