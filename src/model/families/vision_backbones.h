// The vision encoders of group vision_backbones (dinov3_vit.cpp, dinov3_convnext.cpp, aimv2.cpp, mlcd.cpp):
// each file builds one model family; vision_backbones.cpp lists their model_types. MetaCLIP 2 is CLIP's
// modules under other class names and is built beside CLIP in contrastive.cpp.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_dinov3_vit(const ModelConfig& cfg, ModelTemplate& t);          // DINOv3 ViT (DINOv3ViTModel)
void build_dinov3_convnext(const ModelConfig& cfg, ModelTemplate& t);     // DINOv3 ConvNeXt
void build_aimv2(const ModelConfig& cfg, ModelTemplate& t);               // AIMv2 image-text (Aimv2Model)
void build_aimv2_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // AIMv2's vision encoder alone
void build_mlcd(const ModelConfig& cfg, ModelTemplate& t);                // MLCD (MLCDVisionModel)

}  // namespace ma::families
