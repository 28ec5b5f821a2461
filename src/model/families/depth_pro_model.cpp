// Depth Pro (apple/DepthPro-hf): DepthProModel runs one DINOv2 encoder over overlapping patches of the image
// at three scales and another over the whole image, upsamples their features (and two intermediate layers'
// of the patch encoder) into a pyramid; DepthProForDepthEstimation fuses it with DPT's residual units and
// predicts depth, and its optional field-of-view model runs a third DINOv2 encoder. DepthProConfig sets every
// encoder's image_size to its own patch_size (384): the size of the patches they see.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/depth.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vision_encoders.h"

namespace ma::families {
namespace {

// The length of a list field whose values shape nothing here (hook ids, ratios), or `dflt` when absent.
size_t depth_pro_list_size(const ModelConfig& cfg, std::string_view key, size_t dflt) {
  const json::Value* v = cfg.raw(key);
  if (!v || v->is_null()) return dflt;
  if (!v->is_array()) cfg.fail(key, "must be a list");
  return v->items().size();
}

// One of the DINOv2 encoders (AutoModel.from_config of a sub-config, Dinov2Config() when absent).
uint64_t depth_pro_encoder(const ModelConfig& cfg, std::string_view key, const std::string& cls,
                           const std::string& prefix, uint64_t patch, ModelTemplate& t) {
  const ModelConfig sub = sub_or(cfg, key, R"({"model_type":"dinov2"})");
  if (!sub.has("model_type")) sub.fail("model_type", "is required (DepthProConfig raises without it)");
  if (sub.string_or("model_type", "") != "dinov2")
    sub.fail("model_type", "must be dinov2: the only encoder of a Depth Pro checkpoint");
  return dinov2_body(sub, cls, prefix, t, patch);
}

// DepthProFeatureUpsampleBlock: an optional 1 x 1 projection, then 2 x 2 transposed convolutions.
void depth_pro_upsample_block(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t mid, uint64_t out,
                              uint64_t upsamples, bool projection, bool bias) {
  uint64_t index = 0;
  if (projection) {
    t.add(p + "layers.0.weight", {mid, in, 1, 1});
    if (bias) t.add(p + "layers.0.bias", {mid});
    ++index;
  }
  for (uint64_t i = 0; i < upsamples; ++i, ++index) {
    const std::string l = p + "layers." + std::to_string(index);
    t.add(l + ".weight", {i == 0 ? mid : out, out, 2, 2});  // ConvTranspose2d: [in, out, k, k]
    if (bias) t.add(l + ".bias", {out});
  }
}

// DepthProFeatureFusionLayer: DPT's two residual units, then (but for the last) a 2 x 2 deconvolution, then
// the 1 x 1 projection; registered in that order.
void depth_pro_fusion_layer(ModelTemplate& t, const std::string& p, uint64_t f, bool bias, bool batch_norm,
                            bool deconv) {
  dpt_residual_unit(t, p + "residual_layer1.", f, bias, batch_norm);
  dpt_residual_unit(t, p + "residual_layer2.", f, bias, batch_norm);
  if (deconv) t.add(p + "deconv.weight", {f, f, 2, 2});
  blocks::conv2d(t, p + "projection", f, f, 1);
}

uint64_t depth_pro_ceil_div(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

void build_depth_pro(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DepthProModel");
  const std::string task = supported_task(cfg, cls, "DepthPro", {"Model", "ForDepthEstimation"});
  const bool estimation = task == "ForDepthEstimation";
  const std::string base = estimation ? "depth_pro." : "";
  const uint64_t patch = cfg.dim_or("patch_size", 384);
  const uint64_t f = cfg.dim_or("fusion_hidden_size", 256);
  const std::vector<uint64_t> scaled = cfg.dims_or("scaled_images_feature_dims", {1024, 1024, 512});
  const std::vector<uint64_t> intermediate = cfg.dims_or("intermediate_feature_dims", {256, 256});
  // DepthProConfig's consistency checks, raised before a module exists.
  if (depth_pro_list_size(cfg, "scaled_images_ratios", 3) != scaled.size() ||
      depth_pro_list_size(cfg, "scaled_images_overlap_ratios", 3) != scaled.size())
    cfg.fail("scaled_images_feature_dims", "must be as long as scaled_images_ratios and _overlap_ratios");
  if (depth_pro_list_size(cfg, "intermediate_hook_ids", 2) != intermediate.size())
    cfg.fail("intermediate_feature_dims", "must be as long as intermediate_hook_ids");
  if (scaled.empty()) cfg.fail("scaled_images_feature_dims", "must list at least one scale");
  const uint64_t fov_layers = cfg.count_or("num_fov_head_layers", 2);
  if (fov_layers >= 64 || (f >> fov_layers) == 0)
    cfg.fail("num_fov_head_layers", "must leave fusion_hidden_size // 2**num_fov_head_layers above 0");

  const std::string enc = base + "encoder.";
  const uint64_t patch_h =
      depth_pro_encoder(cfg, "patch_model_config", cls, enc + "patch_encoder.model.", patch, t);
  const uint64_t image_h =
      depth_pro_encoder(cfg, "image_model_config", cls, enc + "image_encoder.model.", patch, t);

  // DepthProNeck: the feature upsampling (the image encoder's, each scale's, each intermediate layer's), the
  // fusion of the image features with the lowest scale, the projections into the fusion width.
  const std::string up = base + "neck.feature_upsample.";
  depth_pro_upsample_block(t, up + "image_block.", image_h, image_h, scaled[0], 1, false, true);
  for (size_t i = 0; i < scaled.size(); ++i)
    depth_pro_upsample_block(t, up + "scaled_images." + std::to_string(i) + ".", patch_h, scaled[i],
                             scaled[i], 1, true, false);
  for (size_t i = 0; i < intermediate.size(); ++i)
    depth_pro_upsample_block(t, up + "intermediate." + std::to_string(i) + ".", patch_h,
                             i == 0 ? f : intermediate[i], intermediate[i], 2 + i, true, false);
  blocks::conv2d(t, base + "neck.fuse_image_with_low_res", 2 * scaled[0], scaled[0], 1);
  std::vector<uint64_t> combined = scaled;
  combined.insert(combined.end(), intermediate.begin(), intermediate.end());
  for (size_t i = 0; i < combined.size(); ++i)  // the last is an nn.Identity when already fusion-wide
    if (i + 1 != combined.size() || combined[i] != f)
      t.add(base + "neck.feature_projection.projections." + std::to_string(i) + ".weight",
            {f, combined[i], 3, 3});
  if (!estimation) return;

  // DepthProFeatureFusionStage: one layer per feature map but the first (they fuse pairwise), the last
  // without its deconvolution.
  const bool batch_norm = cfg.flag_or("use_batch_norm_in_fusion_residual", false);
  const json::Value* bias_field = cfg.raw("use_bias_in_fusion_residual");
  const bool bias =
      bias_field && bias_field->is_null() ? !batch_norm : cfg.flag_or("use_bias_in_fusion_residual", true);
  const size_t maps = intermediate.size() + scaled.size();
  for (size_t i = 0; i + 1 < maps; ++i)
    depth_pro_fusion_layer(t, "fusion_stage.intermediate." + std::to_string(i) + ".", f, bias, batch_norm,
                           true);
  depth_pro_fusion_layer(t, "fusion_stage.final.", f, bias, batch_norm, false);

  // DepthProDepthEstimationHead: layers 3 and 5 are ReLUs.
  if (f < 2) cfg.fail("fusion_hidden_size", "must be at least 2: the head halves it");
  blocks::conv2d(t, "head.layers.0", f, f / 2, 3);
  t.add("head.layers.1.weight", {f / 2, f / 2, 2, 2});
  t.add("head.layers.1.bias", {f / 2});
  blocks::conv2d(t, "head.layers.2", f / 2, 32, 3);
  blocks::conv2d(t, "head.layers.4", 32, 1, 1);

  if (!cfg.flag_or("use_fov_model", false)) return;
  // DepthProFovModel: its encoder with a linear neck to half the fusion width, a strided conv of the image
  // features, and a head of strided convs (ReLUs between) ending in one kernel over what is left of the
  // image encoder's grid.
  const uint64_t fov_h =
      depth_pro_encoder(cfg, "fov_model_config", cls, "fov_model.fov_encoder.model.", patch, t);
  blocks::linear(t, "fov_model.fov_encoder.neck", fov_h, f / 2, true);
  blocks::conv2d(t, "fov_model.conv", f, f / 2, 3);
  for (uint64_t i = 0; i < fov_layers; ++i)
    blocks::conv2d(t, "fov_model.head.layers." + std::to_string(2 * i), depth_pro_ceil_div(f, 2ull << i),
                   depth_pro_ceil_div(f, 4ull << i), 3);
  const ModelConfig image = sub_or(cfg, "image_model_config", R"({"model_type":"dinov2"})");
  const uint64_t grid =
      patch / image.dim_or("patch_size", 14);  // image_size // patch_size of the image encoder
  const uint64_t kernel = (grid - 1) / (1ull << fov_layers) + 1;  // int((grid - 1) / 2**n + 1)
  t.add("fov_model.head.layers." + std::to_string(2 * fov_layers) + ".weight",
        {1, depth_pro_ceil_div(f, 2ull << fov_layers), kernel, kernel});
  t.add("fov_model.head.layers." + std::to_string(2 * fov_layers) + ".bias", {1});
}

}  // namespace ma::families
