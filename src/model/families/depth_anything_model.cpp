// Depth Anything (V1 and V2, relative and metric) and Prompt Depth Anything: one task class each,
// *ForDepthEstimation, which registers backbone (a Dinov2Backbone), neck and head in that order. The metric
// variants differ only in the head's final activation (a sigmoid times max_depth): no parameter.
#include <string>

#include "model/blocks.h"
#include "model/families/depth.h"
#include "model/families/encoders_common.h"
#include "model/families/vision_encoders.h"

namespace ma::families {
namespace {

void build_depth_estimator(const ModelConfig& cfg, ModelTemplate& t, std::string_view family, bool prompt) {
  const std::string cls = architecture_of(cfg, std::string(family) + "ForDepthEstimation");
  supported_task(cfg, cls, family, {"ForDepthEstimation"});
  // Both config classes refuse any other value before a module exists.
  const std::string type = cfg.string_or("depth_estimation_type", "relative");
  if (type != "relative" && type != "metric") cfg.fail("depth_estimation_type", "must be relative or metric");
  // The config classes' default backbone: DINOv2-small at 518 pixels (LiheYoung/depth-anything-small-hf).
  const ModelConfig bb = depth_backbone_config(
      cfg, R"({"model_type":"dinov2","image_size":518,"hidden_size":384,"num_attention_heads":6})", "dinov2");
  dinov2_body(bb, cls, "backbone.", t);
  DptNeckStyle neck;
  neck.backbone_width = cfg.dim_or("reassemble_hidden_size", 384);  // its own field, not the backbone's
  neck.prompt_depth = prompt;
  dpt_neck(cfg, neck, t);
  // DepthAnythingDepthEstimationHead: halve the fusion width, upsample, head_hidden_size, one depth channel.
  const uint64_t fusion = cfg.dim_or("fusion_hidden_size", 64), hidden = cfg.dim_or("head_hidden_size", 32);
  if (fusion < 2) cfg.fail("fusion_hidden_size", "must be at least 2: the head halves it");
  blocks::conv2d(t, "head.conv1", fusion, fusion / 2, 3);
  blocks::conv2d(t, "head.conv2", fusion / 2, hidden, 3);
  blocks::conv2d(t, "head.conv3", hidden, 1, 1);
}

}  // namespace

void build_depth_anything(const ModelConfig& cfg, ModelTemplate& t) {
  build_depth_estimator(cfg, t, "DepthAnything", false);
}

void build_prompt_depth_anything(const ModelConfig& cfg, ModelTemplate& t) {
  build_depth_estimator(cfg, t, "PromptDepthAnything", true);
}

}  // namespace ma::families
