// Builders of the monocular depth estimators (group depth, family_groups.h): Depth Anything and Prompt Depth
// Anything (depth_anything_model.cpp, a DINOv2 backbone) and ZoeDepth (zoedepth_model.cpp, a BEiT backbone
// and metric-bin heads), which share DPT's neck (dpt_neck.cpp), and Depth Pro (depth_pro_model.cpp, three
// DINOv2 encoders and DPT's fusion units).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_depth_anything(const ModelConfig& cfg, ModelTemplate& t);  // DepthAnythingForDepthEstimation
void build_prompt_depth_anything(const ModelConfig& cfg, ModelTemplate& t);  // PromptDepthAnything...
void build_zoedepth(const ModelConfig& cfg, ModelTemplate& t);               // ZoeDepthForDepthEstimation
void build_depth_pro(const ModelConfig& cfg, ModelTemplate& t);  // DepthProModel / DepthProForDepthEstimation

// The backbone_config load_backbone builds from: `dflt` (the composite config class's default backbone) when
// both backbone_config and backbone are absent. A backbone named only by `backbone` (a Hub checkpoint or a
// timm model) is refused: config.json does not give its parameters; so is use_timm_backbone, and a
// backbone_config whose model_type is not `model_type`.
ModelConfig depth_backbone_config(const ModelConfig& cfg, const char* dflt, std::string_view model_type);

// How the DPT necks of these models differ. Depth Anything's and ZoeDepth's are DPT's (modeling_dpt.py
// DPTNeck): a reassemble stage (a 1 x 1 projection of the backbone's width and a resampling per feature
// map), bias-free 3 x 3 convs into the fusion width and one fusion layer per map.
struct DptNeckStyle {
  uint64_t backbone_width = 0;   // what the reassemble projections read
  bool readout_project = false;  // ZoeDepth's readout_type "project": a Linear(2H, H) per map
  bool prompt_depth = false;     // Prompt Depth Anything: a prompt_depth_layer in every fusion layer
  bool residual_bias = true;     // the fusion residual units' conv biases
  bool residual_batch_norm = false;
  // The config class's defaults of neck_hidden_sizes and fusion_hidden_size (Depth Anything's small model).
  std::vector<uint64_t> default_neck_sizes{48, 96, 192, 384};
  uint64_t default_fusion = 64;
};
// DPTPreActResidualLayer under `p` ("...residual_layer1."): two 3 x 3 convolutions of `width`, biased when
// `bias`, then two BatchNorm2d (running statistics as buffers) when `batch_norm`.
void dpt_residual_unit(ModelTemplate& t, const std::string& p, uint64_t width, bool bias, bool batch_norm);
// DPT's neck under "neck." from reassemble_factors, neck_hidden_sizes and fusion_hidden_size.
void dpt_neck(const ModelConfig& cfg, const DptNeckStyle& s, ModelTemplate& t);

}  // namespace ma::families
