// RegNet (model_type regnet: RegNetModel, RegNetForImageClassification; facebook/regnet-x-002 ...
// facebook/regnet-y-10b-seer): ResNet's layout (a stem, stages whose first layer strides and projects the
// shortcut, a classifier = Sequential(Flatten, Linear)) with a 3 x 3 stem conv and X / Y layers: a 1 x 1
// conv, a grouped 3 x 3 conv (groups = width / groups_width), for Y a squeeze-and-excitation, a 1 x 1 conv.
#include <algorithm>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// Python's round(in_channels / 4), which rounds halves to even: RegNetSELayer's reduced width.
uint64_t regnet_se_width(uint64_t in) {
  const uint64_t q = in / 4, r = in % 4;
  return r < 2 ? q : r > 2 ? q + 1 : q + (q % 2);
}

}  // namespace

void build_regnet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "RegNetModel");
  const std::string task = supported_task(cfg, cls, "RegNet", {"Model", "ForImageClassification"});
  // RegNetConfig's defaults are RegNetY-4.0GF's (facebook/regnet-y-040). It sets downsample_in_first_stage
  // to true after reading the config, whatever config.json says: every stage's first layer projects.
  const uint64_t embedding = cfg.dim_or("embedding_size", 32);
  const std::vector<uint64_t> widths = cfg.dims_or("hidden_sizes", {128, 192, 512, 1088});
  const std::vector<uint64_t> depths = cfg.dims_or("depths", {2, 6, 12, 2});
  const uint64_t groups_width = cfg.dim_or("groups_width", 64);
  const std::string layer_type = cfg.string_or("layer_type", "y");
  if (layer_type != "x" && layer_type != "y") cfg.fail("layer_type", "must be x or y");
  if (widths.empty()) cfg.fail("hidden_sizes", "must name at least one stage");
  if (widths.size() != depths.size()) cfg.fail("depths", "must list one depth per hidden_sizes entry");
  uint64_t blocks = 0;
  for (const uint64_t d : depths) blocks += d;
  cfg.check_layer_list("depths", blocks);

  const std::string p = task == "Model" ? "" : "regnet.";
  cnn_conv_norm(t, p + "embedder.embedder.convolution", p + "embedder.embedder.normalization",
                cfg.dim_or("num_channels", 3), embedding, 3);
  uint64_t in = embedding;
  for (size_t s = 0; s < widths.size(); ++s) {
    const uint64_t out = widths[s];
    const uint64_t groups = std::max<uint64_t>(1, out / groups_width);
    if (out % groups != 0)
      cfg.fail("groups_width", "must split hidden_sizes[" + std::to_string(s) + "] into equal conv groups");
    for (uint64_t l = 0; l < depths[s]; ++l) {
      const std::string lp = p + "encoder.stages." + std::to_string(s) + ".layers." + std::to_string(l) + ".";
      // The first layer of every stage strides (downsample_in_first_stage is always true): it projects.
      if (l == 0) {
        cnn_conv_norm(t, lp + "shortcut.convolution", lp + "shortcut.normalization", in, out, 1);
      }
      cnn_conv_norm(t, lp + "layer.0.convolution", lp + "layer.0.normalization", in, out, 1);
      cnn_conv_norm(t, lp + "layer.1.convolution", lp + "layer.1.normalization", out, out, 3, groups);
      std::string last = lp + "layer.2.";
      if (layer_type == "y") {
        // RegNetSELayer: attention = Sequential(Conv2d, ReLU, Conv2d, Sigmoid), both convs biased; its
        // reduced width follows the layer's input, not its output.
        const uint64_t reduced = regnet_se_width(in);
        blocks::conv2d(t, lp + "layer.2.attention.0", out, reduced, 1);
        blocks::conv2d(t, lp + "layer.2.attention.2", reduced, out, 1);
        last = lp + "layer.3.";
      }
      cnn_conv_norm(t, last + "convolution", last + "normalization", out, out, 1);
      in = out;
    }
  }
  describe_cnn_backbone(cfg, cls, p + "encoder.stages", widths.back(), blocks, t);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "classifier.1", widths.back(), labels, true);
}

}  // namespace ma::families
