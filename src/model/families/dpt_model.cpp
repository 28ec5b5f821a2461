// DPT (DPTModel, DPTForDepthEstimation, DPTForSemanticSegmentation): a ViT whose modeling_dpt.py copy keeps
// transformers 4's layer modules (DPTViTLayer: attention.attention.query ...), DPT's neck (dpt_neck.cpp) over
// four of its hidden states, and a depth or a segmentation head. DPTConfig's defaults are ViT-base's at 384
// pixels; Intel/dpt-large sets ViT-large's sizes and its own neck_hidden_sizes.
#include <string>

#include "model/blocks.h"
#include "model/families/cnn_backbones.h"
#include "model/families/depth.h"
#include "model/families/encoders_common.h"
#include "model/families/vit_relatives.h"

namespace ma::families {
namespace {

// DPTModel's modules under `prefix`: DPTViTEmbeddings (cls_token and position_embeddings, its own
// parameters, before the patch projection), the encoder's layers, the final LayerNorm and, when `pooler`,
// DPTViTPooler. Returns the width.
uint64_t dpt_vit(const ModelConfig& cfg, const std::string& cls, const std::string& prefix, bool pooler,
                 ModelTemplate& t) {
  TextEncoderDims d = vit_base_dims(cfg);
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 384);
  const auto [patch_h, patch_w] = vit_pair(cfg, "patch_size", 16);
  if (patch_h > image_h || patch_w > image_w) cfg.fail("patch_size", "must not exceed image_size");
  d.max_positions = (image_h / patch_h) * (image_w / patch_w) + 1;  // the patches and [CLS]
  fill_encoder_record(t, cls, d);
  const uint64_t h = d.layer.hidden;
  t.add(prefix + "embeddings.cls_token", {1, 1, h});
  t.add(prefix + "embeddings.position_embeddings", {1, d.max_positions, h});
  t.add(prefix + "embeddings.patch_embeddings.projection.weight",
        {h, cfg.dim_or("num_channels", 3), patch_h, patch_w});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  vit4_encoder(t, prefix + "encoder.layer", d.layers, d.layer, Vit4QkvBias::Linears);
  StackSpec& encoder = t.arch.stacks.back();
  encoder.patch_size = patch_h;
  encoder.image_size = image_h;
  blocks::norm(t, prefix + "layernorm", h, true);
  if (pooler) blocks::linear(t, prefix + "pooler.dense", h, cfg.dim_or("pooler_output_size", h), true);
  return h;
}

// DPTDepthEstimationHead: an optional 256-channel projection (add_projection, fixed at 256 whatever the
// fusion width), then Conv(F, F/2, 3), an upsampling, Conv(F/2, 32, 3), Conv(32, 1, 1) in a Sequential.
void dpt_depth_head(const ModelConfig& cfg, uint64_t fusion, ModelTemplate& t) {
  if (cfg.flag_or("add_projection", false)) blocks::conv2d(t, "head.projection", 256, 256, 3);
  if (fusion < 2) cfg.fail("fusion_hidden_size", "must be at least 2: the depth head halves it");
  blocks::conv2d(t, "head.head.0", fusion, fusion / 2, 3);
  blocks::conv2d(t, "head.head.2", fusion / 2, 32, 3);
  blocks::conv2d(t, "head.head.4", 32, 1, 1);
}

// DPTSemanticSegmentationHead and DPTAuxiliaryHead share their layout: a bias-free 3 x 3 conv, BatchNorm2d,
// ReLU, dropout, then a 1 x 1 conv to the classes.
void dpt_segmentation_head(const std::string& p, uint64_t fusion, uint64_t labels, ModelTemplate& t) {
  cnn_conv_norm(t, p + ".0", p + ".1", fusion, fusion, 3);
  blocks::conv2d(t, p + ".4", fusion, labels, 1);
}

}  // namespace

void build_dpt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DPTModel");
  const std::string task =
      supported_task(cfg, cls, "DPT", {"Model", "ForDepthEstimation", "ForSemanticSegmentation"});
  // DPT-Hybrid embeds the image with a BiT backbone, and DPT 3.1 (BEiT, Swin V2, DINOv2 backbones) loads
  // its backbone through load_backbone: neither is modelled here.
  if (cfg.flag_or("is_hybrid", false))
    cfg.fail("is_hybrid", "must be false: DPT-Hybrid's BiT embeddings are not modelled");
  if (cfg.has("backbone_config") || cfg.has("backbone"))
    cfg.fail(cfg.has("backbone_config") ? "backbone_config" : "backbone",
             "must be absent: DPT with a separate backbone (DPT 3.1) is not modelled");
  // DPTConfig refuses any other readout before a module exists.
  const std::string readout = cfg.string_or("readout_type", "project");
  if (readout != "ignore" && readout != "add" && readout != "project")
    cfg.fail("readout_type", "must be ignore, add or project");
  const uint64_t h = dpt_vit(cfg, cls, task == "Model" ? "" : "dpt.", task == "Model", t);
  if (task == "Model") return;

  DptNeckStyle neck;
  neck.backbone_width = h;
  neck.readout_project = readout == "project";
  neck.residual_batch_norm = cfg.flag_or("use_batch_norm_in_fusion_residual", false);
  // use_bias_in_fusion_residual: None (the default) means "unless batch-normed".
  neck.residual_bias = cfg.has("use_bias_in_fusion_residual")
                           ? cfg.flag_or("use_bias_in_fusion_residual", true)
                           : !neck.residual_batch_norm;
  neck.default_neck_sizes = {96, 192, 384, 768};
  neck.default_fusion = 256;
  dpt_neck(cfg, neck, t);
  const uint64_t fusion = cfg.dim_or("fusion_hidden_size", 256);
  if (task == "ForDepthEstimation") {
    dpt_depth_head(cfg, fusion, t);
    return;
  }
  const uint64_t labels = num_labels(cfg);
  dpt_segmentation_head("head.head", fusion, labels, t);
  if (cfg.flag_or("use_auxiliary_head", true))
    dpt_segmentation_head("auxiliary_head.head", fusion, labels, t);
}

}  // namespace ma::families
