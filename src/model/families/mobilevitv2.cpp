// MobileViTV2 (mobilevitv2: MobileViTV2Model, MobileViTV2ForImageClassification;
// apple/mobilevitv2-{0.5..2.0}- imagenet1k-256): MobileViT's network with every width scaled by
// width_multiplier, its MobileViT blocks rebuilt around separable self-attention - 1 x 1 convs throughout:
// qkv_proj makes one context score per position plus keys and values, out_proj, a two-conv FFN, GroupNorms of
// one group as the layer norms -, a depthwise local conv, and no fusion conv nor final expansion. The
// DeepLabV3 head is refused.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_hier.h"

namespace ma::families {
namespace {

struct MobileVitV2Shape {
  uint64_t channels = 3, kernel = 3;
  double width = 1.0, ffn = 2.0, expand_ratio = 2.0;
  std::vector<uint64_t> attn_blocks{2, 4, 3}, attn_dims{128, 192, 256};
  // The encoder's widths: the stem's, then its five stages' (make_divisible of 32 (clipped to 16..64), 64,
  // 128, 256, 384 and 512 times width_multiplier).
  uint64_t dims[6] = {};
  uint64_t attn(size_t k) const {
    return mobilevit_make_divisible(static_cast<double>(attn_dims[k]) * width, 8, 8);
  }
  // int((ffn_multiplier * d) // 16 * 16): the FFN width, a multiple of 16.
  uint64_t ffn_width(uint64_t d) const {
    return static_cast<uint64_t>(std::floor(ffn * static_cast<double>(d) / 16) * 16);
  }
};

MobileVitV2Shape read_mobilevitv2(const ModelConfig& cfg) {
  MobileVitV2Shape s;
  s.channels = cfg.dim_or("num_channels", s.channels);
  s.kernel = cfg.dim_or("conv_kernel_size", s.kernel);
  s.width = cfg.number_or("width_multiplier", s.width);
  s.ffn = cfg.number_or("ffn_multiplier", s.ffn);
  s.expand_ratio = cfg.number_or("expand_ratio", s.expand_ratio);
  s.attn_blocks = cfg.dims_or("n_attn_blocks", s.attn_blocks);
  s.attn_dims = cfg.dims_or("base_attn_unit_dims", s.attn_dims);
  // The encoder reads three entries of each (an IndexError when shorter).
  if (s.attn_blocks.size() < 3)
    cfg.fail("n_attn_blocks", "must give the depths of the three MobileViTV2 blocks");
  if (s.attn_dims.size() < 3)
    cfg.fail("base_attn_unit_dims", "must give the widths of the three MobileViTV2 blocks");
  cfg.check_layer_list("n_attn_blocks", s.attn_blocks[0] + s.attn_blocks[1] + s.attn_blocks[2]);
  if (!(s.width > 0.0) || s.width > 4096.0) cfg.fail("width_multiplier", "must be above 0 and at most 4096");
  if (!(s.ffn > 0.0) || s.ffn > 4096.0) cfg.fail("ffn_multiplier", "must be above 0 and at most 4096");
  if (!(s.expand_ratio >= 0.0) || s.expand_ratio > 4096.0) cfg.fail("expand_ratio", "must be from 0 to 4096");
  if (s.kernel > 4096) cfg.fail("conv_kernel_size", "must be at most 4096");
  for (uint64_t d : s.attn_dims)
    if (d > 4096) cfg.fail("base_attn_unit_dims", "must be at most 4096");
  s.dims[0] = mobilevit_make_divisible(std::clamp(32 * s.width, 16.0, 64.0), 8, 16);
  s.dims[1] = mobilevit_make_divisible(64 * s.width, 16, 16);
  constexpr double kBases[] = {128, 256, 384, 512};
  for (size_t i = 0; i < 4; ++i) s.dims[i + 2] = mobilevit_make_divisible(kBases[i] * s.width, 8, 8);
  for (size_t k = 0; k < 3; ++k)
    if (s.ffn_width(s.attn(k)) == 0) cfg.fail("ffn_multiplier", "must make an FFN of at least 16 channels");
  return s;
}

// MobileViTV2Layer under `p`: from `in` to `out` channels, `depth` separable-attention layers of width `d`.
void mobilevitv2_block(ModelTemplate& t, const MobileVitV2Shape& s, const std::string& p, uint64_t in,
                       uint64_t out, uint64_t d, uint64_t depth) {
  mobilevit_inverted_residual(t, s.expand_ratio, p + "downsampling_layer.", in, out);
  mobilevit_conv(t, p + "conv_kxk.", out, out, s.kernel, out);  // depthwise
  mobilevit_conv(t, p + "conv_1x1.", out, d, 1, 1, false);
  const uint64_t f = s.ffn_width(d);
  for (uint64_t i = 0; i < depth; ++i) {
    const std::string l = p + "transformer.layer." + std::to_string(i) + ".";
    blocks::norm(t, l + "layernorm_before", d, true);  // GroupNorm(1, d): a weight and a bias per channel
    mobilevit_conv(t, l + "attention.qkv_proj.", d, 1 + 2 * d, 1, 1, false, true);
    mobilevit_conv(t, l + "attention.out_proj.", d, d, 1, 1, false, true);
    blocks::norm(t, l + "layernorm_after", d, true);
    mobilevit_conv(t, l + "ffn.conv1.", d, f, 1, 1, false, true);
    mobilevit_conv(t, l + "ffn.conv2.", f, d, 1, 1, false, true);
  }
  blocks::norm(t, p + "layernorm", d, true);
  mobilevit_conv(t, p + "conv_projection.", d, out, 1);
}

}  // namespace

void build_mobilevitv2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MobileViTV2Model");
  const std::string task = supported_task(cfg, cls, "MobileViTV2", {"Model", "ForImageClassification"});
  const MobileVitV2Shape s = read_mobilevitv2(cfg);
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.num_layers = s.attn_blocks[0] + s.attn_blocks[1] + s.attn_blocks[2];
  a.hidden_size = s.attn(2);
  // Separable attention scores each position once (a single context score), for all channels together.
  a.num_attention_heads = a.num_key_value_heads = 1;
  a.head_dim = s.attn(2);
  a.intermediate_size = s.ffn_width(s.attn(2));
  const std::string p = task == "Model" ? "" : "mobilevitv2.";
  StackSpec& stack = a.add_stack(StackRole::Encoder, p + "encoder.layer", s.attn(2));
  stack.image_size = cfg.dim_or("image_size", 256);
  mobilevit_conv(t, p + "conv_stem.", s.channels, s.dims[0], 3);
  const std::string e = p + "encoder.layer.";
  mobilevit_inverted_residual(t, s.expand_ratio, e + "0.layer.0.", s.dims[0], s.dims[1]);
  for (uint64_t i = 0; i < 2; ++i)
    mobilevit_inverted_residual(t, s.expand_ratio, e + "1.layer." + std::to_string(i) + ".",
                                i == 0 ? s.dims[1] : s.dims[2], s.dims[2]);
  for (size_t k = 0; k < 3; ++k)
    mobilevitv2_block(t, s, e + std::to_string(k + 2) + ".", s.dims[k + 2], s.dims[k + 3], s.attn(k),
                      s.attn_blocks[k]);
  // A Linear over the pooled last stage; nn.Identity for 0 labels.
  if (task == "ForImageClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", s.dims[5], labels, true);
}

}  // namespace ma::families
