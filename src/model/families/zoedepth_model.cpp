// ZoeDepth (ZoeDepthForDepthEstimation, Intel/zoedepth-*): a BEiT backbone, DPT's neck, a relative depth
// head and a metric head that refines depth bins through attractor layers. One bin configuration builds
// ZoeDepthMetricDepthEstimationHead; several (NYU and KITTI) build
// ZoeDepthMultipleMetricDepthEstimationHeads, which routes between per-domain bins with a small transformer
// over the bottleneck and an MLP classifier.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/beit.h"
#include "model/families/depth.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// What shapes the metric heads, ZoeDepthConfig's defaults.
struct ZoeDepthDims {
  uint64_t fusion = 256;
  uint64_t relative_features = 32;
  uint64_t bottleneck = 256;
  uint64_t bin_embedding = 128;
  std::vector<uint64_t> attractors{16, 8, 4, 1};
  bool normed = false;  // bin_centers_type "normed": each attractor predicts two values (a linear norm)
};

// ZoeDepthProjector / ZoeDepthSeedBinRegressor: two 1 x 1 convolutions, in -> mid -> out.
void zoedepth_conv_mlp(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t mid, uint64_t out) {
  blocks::conv2d(t, p + "conv1", in, mid, 1);
  blocks::conv2d(t, p + "conv2", mid, out, 1);
}

// ZoeDepthAttractorLayer (normed) / ZoeDepthAttractorLayerUnnormed (softplus).
void zoedepth_attractor(ModelTemplate& t, const std::string& p, const ZoeDepthDims& d, uint64_t attractors) {
  zoedepth_conv_mlp(t, p, d.bin_embedding, d.bin_embedding, d.normed ? 2 * attractors : attractors);
}

// ZoeDepthConditionalLogBinomialSoftmax: a per-pixel MLP over the features and the bin embedding (its
// mlp.1 GELU and mlp.3 Softplus hold nothing), two probabilities and two temperatures.
void zoedepth_log_binomial(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t condition,
                           uint64_t bottleneck_factor) {
  const uint64_t width = (in + condition) / bottleneck_factor;
  blocks::conv2d(t, p + "mlp.0", in + condition, width, 1);
  blocks::conv2d(t, p + "mlp.2", width, 4, 1);
}

// ZoeDepthMetricDepthEstimationHead for the one bin configuration.
void zoedepth_metric_head(const ModelConfig& cfg, const ZoeDepthDims& d, uint64_t bins, ModelTemplate& t) {
  if (d.attractors.size() < 4) cfg.fail("num_attractors", "must list one count per fusion stage (4)");
  const std::string m = "metric_head.";
  blocks::conv2d(t, m + "conv2", d.bottleneck, d.bottleneck, 1);
  // The single head keeps the classes' default widths: 256 for the seed regressor, 128 for the projectors.
  zoedepth_conv_mlp(t, m + "seed_bin_regressor.", d.bottleneck, 256, bins);
  zoedepth_conv_mlp(t, m + "seed_projector.", d.bottleneck, 128, d.bin_embedding);
  for (int i = 0; i < 4; ++i)
    zoedepth_conv_mlp(t, m + "projectors." + std::to_string(i) + ".", d.fusion, 128, d.bin_embedding);
  for (size_t i = 0; i < 4; ++i)
    zoedepth_attractor(t, m + "attractors." + std::to_string(i) + ".", d, d.attractors[i]);
  // The last features and the relative depth beside them.
  zoedepth_log_binomial(t, m + "conditional_log_binomial.", d.relative_features + 1, d.bin_embedding, 2);
}

// ZoeDepthMultipleMetricDepthEstimationHeads: one seed regressor, attractor list and log-binomial per bin
// configuration (a ModuleDict by its name, in the configurations' order).
void zoedepth_multiple_metric_heads(const ModelConfig& cfg, const ZoeDepthDims& d,
                                    const std::vector<ModelConfig>& confs, ModelTemplate& t) {
  const std::string m = "metric_head.";
  const uint64_t layers = cfg.dim("num_patch_transformer_layers");
  const uint64_t ph = cfg.dim("patch_transformer_hidden_size");
  const uint64_t pi = cfg.dim("patch_transformer_intermediate_size");
  split_heads(cfg, "patch_transformer_num_attention_heads", ph,
              cfg.dim("patch_transformer_num_attention_heads"));
  const uint64_t mid = d.bin_embedding / 2;
  if (mid == 0) cfg.fail("bin_embedding_dim", "must be at least 2: the projectors halve it");
  std::vector<std::string> names;
  for (const ModelConfig& c : confs) names.push_back(c.string_or("name", ""));
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i].empty()) confs[i].fail("name", "must name each of several bin configurations");
  blocks::conv2d(t, m + "conv2", d.bottleneck, d.bottleneck, 1);
  const std::string pt = m + "patch_transformer.";
  for (uint64_t i = 0; i < layers; ++i) {  // ZoeDepthTransformerEncoderLayer, post-norm
    const std::string p = pt + "transformer_encoder." + std::to_string(i) + ".";
    for (const char* proj : {"query", "key", "value", "out_proj"})
      blocks::linear(t, p + "self_attn." + proj, ph, ph, true);
    blocks::linear(t, p + "linear1", ph, pi, true);
    blocks::linear(t, p + "linear2", pi, ph, true);
    blocks::norm(t, p + "norm1", ph, true);
    blocks::norm(t, p + "norm2", ph, true);
  }
  blocks::conv2d(t, pt + "embedding_convPxP", d.bottleneck, ph, 1);
  // ZoeDepthMLPClassifier(in_features=128, out_features=2): the domain logits, 128 written in the class.
  blocks::linear(t, m + "mlp_classifier.linear1", 128, 128, true);
  blocks::linear(t, m + "mlp_classifier.linear2", 128, 2, true);
  for (size_t c = 0; c < confs.size(); ++c)
    zoedepth_conv_mlp(t, m + "seed_bin_regressors." + names[c] + ".", d.bottleneck, mid,
                      confs[c].dim("n_bins"));
  zoedepth_conv_mlp(t, m + "seed_projector.", d.bottleneck, mid, d.bin_embedding);
  for (int i = 0; i < 4; ++i)
    zoedepth_conv_mlp(t, m + "projectors." + std::to_string(i) + ".", d.fusion, mid, d.bin_embedding);
  // One attractor per num_attractors entry, each built with the class's default of 16 attractors: the
  // entries' own counts are never passed here.
  for (const std::string& name : names)
    for (size_t i = 0; i < d.attractors.size(); ++i)
      zoedepth_attractor(t, m + "attractors." + name + "." + std::to_string(i) + ".", d, 16);
  for (size_t c = 0; c < confs.size(); ++c)
    zoedepth_log_binomial(t, m + "conditional_log_binomial." + names[c] + ".", d.relative_features,
                          d.bin_embedding, 4);
}

}  // namespace

void build_zoedepth(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ZoeDepthForDepthEstimation");
  supported_task(cfg, cls, "ZoeDepth", {"ForDepthEstimation"});
  // ZoeDepthConfig's default backbone: BEiT-large at 384 pixels with a relative position bias per layer.
  const ModelConfig bb =
      depth_backbone_config(cfg,
                            R"({"model_type":"beit","image_size":384,"num_hidden_layers":24,)"
                            R"("hidden_size":1024,"intermediate_size":4096,)"
                            R"("num_attention_heads":16,"use_relative_position_bias":true})",
                            "beit");
  const uint64_t h = beit_backbone(bb, cls, "backbone.", t);
  const std::string readout = cfg.string_or("readout_type", "project");
  if (readout != "ignore" && readout != "add" && readout != "project")
    cfg.fail("readout_type", "must be ignore, add or project");
  DptNeckStyle neck;
  neck.backbone_width = h;  // ZoeDepthForDepthEstimation copies the backbone's hidden_size into the config
  neck.readout_project = readout == "project";
  neck.residual_batch_norm = cfg.flag_or("use_batch_norm_in_fusion_residual", false);
  // use_bias_in_fusion_residual null: biased exactly when there is no batch norm.
  const json::Value* bias = cfg.raw("use_bias_in_fusion_residual");
  neck.residual_bias =
      bias && !bias->is_null() ? cfg.flag_or("use_bias_in_fusion_residual", true) : !neck.residual_batch_norm;
  neck.default_neck_sizes = {96, 192, 384, 768};
  neck.default_fusion = 256;
  dpt_neck(cfg, neck, t);

  ZoeDepthDims d;
  d.fusion = cfg.dim_or("fusion_hidden_size", 256);
  d.relative_features = cfg.dim_or("num_relative_features", 32);
  d.bottleneck = cfg.dim_or("bottleneck_features", 256);
  d.bin_embedding = cfg.dim_or("bin_embedding_dim", 128);
  d.attractors = cfg.dims_or("num_attractors", {16, 8, 4, 1});
  const std::string centers = cfg.string_or("bin_centers_type", "softplus");
  // Any other type leaves the attractor class unbound in the heads' constructors.
  if (centers != "normed" && centers != "softplus")
    cfg.fail("bin_centers_type", "must be normed or softplus");
  d.normed = centers == "normed";

  // ZoeDepthRelativeDepthEstimationHead; add_projection's convolution is 256 wide whatever the fusion width.
  if (d.fusion < 2) cfg.fail("fusion_hidden_size", "must be at least 2: the head halves it");
  if (cfg.flag_or("add_projection", false)) blocks::conv2d(t, "relative_head.projection", 256, 256, 3);
  blocks::conv2d(t, "relative_head.conv1", d.fusion, d.fusion / 2, 3);
  blocks::conv2d(t, "relative_head.conv2", d.fusion / 2, d.relative_features, 3);
  blocks::conv2d(t, "relative_head.conv3", d.relative_features, 1, 1);

  // ZoeDepthConfig: one configuration of 64 bins when none is given.
  std::vector<ModelConfig> confs = cfg.objects("bin_configurations");
  if (confs.size() > 1) {
    zoedepth_multiple_metric_heads(cfg, d, confs, t);
  } else {
    const uint64_t bins = confs.empty() ? 64 : confs.front().dim("n_bins");
    zoedepth_metric_head(cfg, d, bins, t);
  }
}

}  // namespace ma::families
