// RT-DETR's hybrid encoder (RTDetrHybridEncoder, shared by RT-DETR v2): AIFI, a transformer encoder over
// the deepest projected feature map only (encode_proj_layers), then CCFM, a convolutional neck that fuses
// the levels top-down (lateral_convs, fpn_blocks) and bottom-up (downsample_convs, pan_blocks). Its
// BatchNorm2d layers stay trainable: replace_batch_norm freezes the backbone's alone.
#include <cmath>
#include <string>

#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {

void rt_detr_conv_norm(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel) {
  detr_conv_norm(t, p + "conv", p + "norm", in, out, kernel, false);
}

void rt_detr_csp_rep_layer(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden, uint64_t out,
                           uint64_t blocks) {
  rt_detr_conv_norm(t, p + "conv1.", in, hidden, 1);
  rt_detr_conv_norm(t, p + "conv2.", in, hidden, 1);
  for (uint64_t b = 0; b < blocks; ++b) {
    const std::string block = p + "bottlenecks." + std::to_string(b) + ".";
    rt_detr_conv_norm(t, block + "conv1.", hidden, hidden, 3);
    rt_detr_conv_norm(t, block + "conv2.", hidden, hidden, 1);
  }
  if (hidden != out) rt_detr_conv_norm(t, p + "conv3.", hidden, out, 1);
}

StackDims rt_detr_aifi_encoders(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  // RTDetrConfig's defaults (PekingU/rtdetr_r50vd's): one 256-wide AIFI layer of 8 heads over level 2.
  const uint64_t width = cfg.dim_or("encoder_hidden_dim", 256);
  const StackDims aifi = read_stack(cfg, "encoder", width, 1, 8, 1024);
  const size_t aifi_levels = cfg.has("encode_proj_layers") ? cfg.ints("encode_proj_layers").size() : 1;
  // One RTDetrEncoder (a list of layers) per AIFI level.
  for (size_t i = 0; i < aifi_levels; ++i)
    for (uint64_t l = 0; l < aifi.layers; ++l)
      transformer_layer(t, prefix + "encoder." + std::to_string(i) + ".layers." + std::to_string(l),
                        bart_layer_names(false), aifi.layer);
  return aifi;
}

StackDims rt_detr_hybrid_encoder(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const StackDims aifi = rt_detr_aifi_encoders(cfg, prefix, t);
  rt_detr_ccfm_neck(cfg, prefix, t);
  return aifi;
}

void rt_detr_ccfm_neck(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const uint64_t width = cfg.dim_or("encoder_hidden_dim", 256);
  const size_t levels = cfg.has("encoder_in_channels") ? cfg.dims_or("encoder_in_channels", {}).size() : 3;
  if (levels == 0) cfg.fail("encoder_in_channels", "must list at least one feature level");
  // int(encoder_hidden_dim * hidden_expansion), as Python truncates it.
  const double expansion = cfg.number_or("hidden_expansion", 1.0);
  const double hidden_exact = std::floor(static_cast<double>(width) * expansion);
  if (!(hidden_exact >= 1)) cfg.fail("hidden_expansion", "must leave the CSP blocks at least one channel");
  const auto hidden = static_cast<uint64_t>(hidden_exact);

  // Each ModuleList is filled in the loop that creates its twin, but registered whole: all lateral_convs
  // before all fpn_blocks.
  for (size_t s = 0; s + 1 < levels; ++s)
    rt_detr_conv_norm(t, prefix + "lateral_convs." + std::to_string(s) + ".", width, width, 1);
  for (size_t s = 0; s + 1 < levels; ++s)
    rt_detr_csp_rep_layer(t, prefix + "fpn_blocks." + std::to_string(s) + ".", 2 * width, hidden, width, 3);
  for (size_t s = 0; s + 1 < levels; ++s)
    rt_detr_conv_norm(t, prefix + "downsample_convs." + std::to_string(s) + ".", width, width, 3);
  for (size_t s = 0; s + 1 < levels; ++s)
    rt_detr_csp_rep_layer(t, prefix + "pan_blocks." + std::to_string(s) + ".", 2 * width, hidden, width, 3);
}

}  // namespace ma::families
