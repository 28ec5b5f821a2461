// MobileViT (mobilevit: MobileViTModel, MobileViTForImageClassification; apple/mobilevit-{xx-small,x-small,
// small}): a MobileNetV2 network (a strided 3 x 3 stem, inverted residual blocks) whose last three stages
// each add a MobileViT block - a local k x k conv, a 1 x 1 conv into the transformer width, transformer
// layers over unfolded 2 x 2 patches, a projection back and a k x k conv fusing it with the block's input -,
// then a 1 x 1 expansion before the pooled classifier. Every conv but the transformer's input one is
// bias-free and followed by a BatchNorm whose running statistics the checkpoints store. The DeepLabV3
// segmentation head (MobileViTForSemanticSegmentation) is refused.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier.h"

namespace ma::families {
namespace {

struct MobileVitShape {
  uint64_t channels = 3, heads = 4, kernel = 3;
  std::vector<uint64_t> widths{144, 192, 240}, necks{16, 32, 64, 96, 128, 160, 640};
  double mlp_ratio = 2.0, expand_ratio = 4.0;
  bool qkv_bias = true;
};

// MobileViTLayer `stage` (2, 3, 4 of the encoder) under `p`: it downsamples from `in` to `out` channels, then
// runs `depth` transformer layers of width `d`.
void mobilevit_block(ModelTemplate& t, const MobileVitShape& s, const std::string& p, uint64_t in,
                     uint64_t out, uint64_t d, uint64_t depth) {
  mobilevit_inverted_residual(t, s.expand_ratio, p + "downsampling_layer.", in, out);
  mobilevit_conv(t, p + "conv_kxk.", out, out, s.kernel);
  mobilevit_conv(t, p + "conv_1x1.", out, d, 1, 1, false, false);
  const auto inter = static_cast<uint64_t>(static_cast<double>(d) * s.mlp_ratio);
  for (uint64_t i = 0; i < depth; ++i) {
    const std::string l = p + "transformer.layer." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value"})
      blocks::linear(t, l + "attention.attention." + proj, d, d, s.qkv_bias);
    blocks::linear(t, l + "attention.output.dense", d, d, true);
    blocks::linear(t, l + "intermediate.dense", d, inter, true);
    blocks::linear(t, l + "output.dense", inter, d, true);
    blocks::norm(t, l + "layernorm_before", d, true);
    blocks::norm(t, l + "layernorm_after", d, true);
  }
  blocks::norm(t, p + "layernorm", d, true);
  mobilevit_conv(t, p + "conv_projection.", d, out, 1);
  mobilevit_conv(t, p + "fusion.", 2 * out, out, s.kernel);
}

MobileVitShape read_mobilevit(const ModelConfig& cfg) {
  MobileVitShape s;
  s.channels = cfg.dim_or("num_channels", s.channels);
  s.widths = cfg.dims_or("hidden_sizes", s.widths);
  s.necks = cfg.dims_or("neck_hidden_sizes", s.necks);
  s.heads = cfg.dim_or("num_attention_heads", s.heads);
  s.kernel = cfg.dim_or("conv_kernel_size", s.kernel);
  s.mlp_ratio = cfg.number_or("mlp_ratio", s.mlp_ratio);
  s.expand_ratio = cfg.number_or("expand_ratio", s.expand_ratio);
  s.qkv_bias = cfg.flag_or("qkv_bias", s.qkv_bias);
  // The encoder reads hidden_sizes[0..2] and neck_hidden_sizes[0..6] (an IndexError when shorter).
  if (s.widths.size() < 3) cfg.fail("hidden_sizes", "must give the widths of the three MobileViT blocks");
  if (s.necks.size() < 7) cfg.fail("neck_hidden_sizes", "must give the seven convolutional widths");
  if (s.kernel > 4096) cfg.fail("conv_kernel_size", "must be at most 4096");
  for (size_t i = 0; i < 3; ++i) {
    if (s.widths[i] % s.heads != 0)  // MobileViTSelfAttention raises
      cfg.fail("num_attention_heads", "must divide each of hidden_sizes");
    const double inter = static_cast<double>(s.widths[i]) * s.mlp_ratio;
    if (!(inter >= 1.0) || inter > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("mlp_ratio", "times each of hidden_sizes must make an MLP width from 1 to 2^26");
  }
  for (size_t i = 0; i < 6; ++i) {
    const double wide = static_cast<double>(s.necks[i]) * s.expand_ratio;
    if (!(wide >= 0.0) || wide > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("expand_ratio", "times each width must stay within 2^26");
  }
  return s;
}

}  // namespace

void mobilevit_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel,
                    uint64_t groups, bool norm, bool bias) {
  t.add(p + "convolution.weight", {out, in / groups, kernel, kernel});
  if (bias) t.add(p + "convolution.bias", {out});
  if (norm) detr_batch_norm(t, p + "normalization", out, false);
}

uint64_t mobilevit_make_divisible(double value, uint64_t divisor, uint64_t min_value) {
  const auto rounded = static_cast<uint64_t>(value + static_cast<double>(divisor) / 2) / divisor * divisor;
  uint64_t out = std::max(min_value, rounded);
  if (static_cast<double>(out) < 0.9 * value) out += divisor;
  return out;
}

void mobilevit_inverted_residual(ModelTemplate& t, double expand_ratio, const std::string& p, uint64_t in,
                                 uint64_t out) {
  // make_divisible(int(round(in * expand_ratio)), 8): Python's round() takes halves to the even neighbour, as
  // nearbyint does in the default rounding mode.
  const uint64_t wide =
      mobilevit_make_divisible(std::nearbyint(static_cast<double>(in) * expand_ratio), 8, 8);
  mobilevit_conv(t, p + "expand_1x1.", in, wide, 1);
  mobilevit_conv(t, p + "conv_3x3.", wide, wide, 3, wide);
  mobilevit_conv(t, p + "reduce_1x1.", wide, out, 1);
}

void build_mobilevit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MobileViTModel");
  const std::string task = supported_task(cfg, cls, "MobileViT", {"Model", "ForImageClassification"});
  const MobileVitShape s = read_mobilevit(cfg);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  constexpr uint64_t kDepths[] = {2, 4, 3};  // transformer layers of the three MobileViT blocks (fixed)
  a.num_layers = kDepths[0] + kDepths[1] + kDepths[2];
  a.hidden_size = s.widths[2];
  a.num_attention_heads = a.num_key_value_heads = s.heads;
  a.head_dim = s.widths[2] / s.heads;
  a.intermediate_size = static_cast<uint64_t>(static_cast<double>(s.widths[2]) * s.mlp_ratio);
  // Its stages differ in kind and width: one encoder stack over them (a tensor's layer index is its stage's).
  const std::string p = task == "Model" ? "" : "mobilevit.";
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.layer", s.widths[2]);
  stack.image_size = cfg.dim_or("image_size", 256);
  mobilevit_conv(t, p + "conv_stem.", s.channels, s.necks[0], 3);
  const std::string e = p + "encoder.layer.";
  mobilevit_inverted_residual(t, s.expand_ratio, e + "0.layer.0.", s.necks[0], s.necks[1]);
  for (uint64_t i = 0; i < 3; ++i)  // three blocks, the first strided from necks[1]
    mobilevit_inverted_residual(t, s.expand_ratio, e + "1.layer." + std::to_string(i) + ".",
                                i == 0 ? s.necks[1] : s.necks[2], s.necks[2]);
  for (size_t k = 0; k < 3; ++k)
    mobilevit_block(t, s, e + std::to_string(k + 2) + ".", s.necks[k + 2], s.necks[k + 3], s.widths[k],
                    kDepths[k]);
  mobilevit_conv(t, p + "conv_1x1_exp.", s.necks[5], s.necks[6], 1);
  // A Linear over the pooled expansion, from neck_hidden_sizes[-1]; nn.Identity for 0 labels.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg))
      blocks::linear(t, "classifier", s.necks.back(), labels, true);
}

}  // namespace ma::families
