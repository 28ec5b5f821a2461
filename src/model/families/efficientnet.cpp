// EfficientNet (model_type efficientnet: EfficientNetModel, EfficientNetForImageClassification;
// google/efficientnet-b0 ... -b7): a 3 x 3 stem, MBConv blocks in one flat list (a 1 x 1 expansion unless
// the expand ratio is 1, a depthwise conv, a squeeze-and-excitation, a 1 x 1 projection, each conv bias-free
// with an nn.BatchNorm2d; the SE's two convs biased), a 1 x 1 top conv. Widths scale by width_coefficient
// (round_filters), repeats by depth_coefficient (round_repeats).
#include "model/families/efficientnet.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// EfficientNetConfig's fields; its defaults are EfficientNet-B7's.
struct EfficientNetShape {
  double width = 2.0, depth = 3.1, se_ratio = 0.25;
  uint64_t divisor = 8;
  std::vector<uint64_t> kernels{3, 3, 5, 3, 5, 5, 3}, in{32, 16, 24, 40, 80, 112, 192},
      out{16, 24, 40, 80, 112, 192, 320}, repeats{1, 2, 2, 3, 3, 4, 1}, expand{1, 6, 6, 6, 6, 6, 6};

  // round_filters: the width times width_coefficient, rounded to a multiple of depth_divisor (at least one
  // divisor, and never more than 10% below the scaled width).
  uint64_t filters(uint64_t channels) const {
    return cnn_make_divisible(static_cast<double>(channels) * width, divisor, divisor);
  }
  // round_repeats: int(ceil(depth_coefficient * repeats)).
  uint64_t blocks(uint64_t n) const {
    return static_cast<uint64_t>(std::ceil(depth * static_cast<double>(n)));
  }
};

EfficientNetShape read_efficientnet(const ModelConfig& cfg) {
  EfficientNetShape s;
  s.width = cfg.number_or("width_coefficient", s.width);
  s.depth = cfg.number_or("depth_coefficient", s.depth);
  s.se_ratio = cfg.number_or("squeeze_expansion_ratio", s.se_ratio);
  s.divisor = cfg.dim_or("depth_divisor", s.divisor);
  if (!(s.width > 0) || s.width > 64) cfg.fail("width_coefficient", "must be above 0 (and at most 64)");
  if (!(s.depth >= 0) || s.depth > 64) cfg.fail("depth_coefficient", "must be from 0 to 64");
  if (!(s.se_ratio >= 0) || s.se_ratio > 64) cfg.fail("squeeze_expansion_ratio", "must be from 0 to 64");
  s.kernels = cfg.dims_or("kernel_sizes", s.kernels);
  s.in = cfg.dims_or("in_channels", s.in);
  s.out = cfg.dims_or("out_channels", s.out);
  s.expand = cfg.dims_or("expand_ratios", s.expand);
  s.repeats.clear();
  for (const int64_t r : cfg.has("num_block_repeats") ? cfg.ints("num_block_repeats")
                                                      : std::vector<int64_t>{1, 2, 2, 3, 3, 4, 1}) {
    if (r < 0 || r > 1024) cfg.fail("num_block_repeats", "must list repeats from 0 to 1024");
    s.repeats.push_back(static_cast<uint64_t>(r));
  }
  // EfficientNetEncoder reads every list at each of len(in_channels) base blocks.
  if (s.in.empty()) cfg.fail("in_channels", "must name at least one base block");
  for (const auto& [key, list] :
       {std::pair{"out_channels", &s.out}, std::pair{"kernel_sizes", &s.kernels},
        std::pair{"num_block_repeats", &s.repeats}, std::pair{"expand_ratios", &s.expand}})
    if (list->size() < s.in.size())
      cfg.fail(key, "must give a value for each of the " + std::to_string(s.in.size()) + " base blocks");
  return s;
}

}  // namespace

EfficientNetBlocks efficientnet_stem_and_blocks(const ModelConfig& cfg, ModelTemplate& t,
                                                const std::string& p) {
  const EfficientNetShape s = read_efficientnet(cfg);
  EfficientNetBlocks body;
  for (size_t i = 0; i < s.in.size(); ++i) body.blocks += s.blocks(s.repeats[i]);
  cfg.check_layer_list("num_block_repeats", body.blocks);
  body.width = s.filters(32);
  cnn_conv_norm(t, p + "embeddings.convolution", p + "embeddings.batchnorm", cfg.dim_or("num_channels", 3),
                body.width, 3);
  uint64_t n = 0;
  for (size_t i = 0; i < s.in.size(); ++i) {
    const uint64_t out = s.filters(s.out[i]), expand = s.expand[i], kernel = s.kernels[i];
    for (uint64_t j = 0; j < s.blocks(s.repeats[i]); ++j, ++n) {
      const uint64_t in = j > 0 ? out : s.filters(s.in[i]);
      const uint64_t inner = in * expand;  // expand_in_dim
      const std::string b = p + "encoder.blocks." + std::to_string(n) + ".";
      if (expand != 1) cnn_conv_norm(t, b + "expansion.expand_conv", b + "expansion.expand_bn", in, inner, 1);
      cnn_conv_norm(t, b + "depthwise_conv.depthwise_conv", b + "depthwise_conv.depthwise_norm", inner, inner,
                    kernel, inner);
      // The SE's reduced width follows the block's input, not its expanded width.
      const auto se = std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(in) * s.se_ratio));
      blocks::conv2d(t, b + "squeeze_excite.reduce", inner, se, 1);
      blocks::conv2d(t, b + "squeeze_excite.expand", se, inner, 1);
      cnn_conv_norm(t, b + "projection.project_conv", b + "projection.project_bn", inner, out, 1);
    }
    body.width = out;
  }
  return body;
}

void build_efficientnet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "EfficientNetModel");
  const std::string task = supported_task(cfg, cls, "EfficientNet", {"Model", "ForImageClassification"});
  const std::string p = task == "Model" ? "" : "efficientnet.";
  const EfficientNetBlocks body = efficientnet_stem_and_blocks(cfg, t, p);
  // The top batch norm and the classifier read hidden_dim (B7's 2,560 by default), not the top conv's
  // round_filters(1280): a config must keep them equal to run, but transformers builds either.
  const uint64_t hidden = cfg.dim_or("hidden_dim", 2560);
  t.add(p + "encoder.top_conv.weight", {read_efficientnet(cfg).filters(1280), body.width, 1, 1});
  detr_batch_norm(t, p + "encoder.top_bn", hidden, false);
  describe_cnn_backbone(cfg, cls, p + "encoder.blocks", hidden, body.blocks, t);
  t.arch.main_stack()->image_size = cfg.dim_or("image_size", 600);
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", hidden, labels, true);
}

}  // namespace ma::families
