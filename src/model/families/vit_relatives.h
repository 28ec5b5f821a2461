// Builders of the ViT relatives (group vit_relatives, family_groups.h): BEiT and data2vec-vision
// (beit_model.cpp, transformers 5's BEiT layout), ViT-MAE (vit_mae.cpp), ViT-MSN and I-JEPA
// (vit_msn_ijepa.cpp), both ViT's body with another head, and DINOv2 with registers
// (dinov2_with_registers.cpp).
#pragma once
#include <span>

#include "model/config.h"
#include "model/family_registry.h"
#include "model/model_template.h"

namespace ma::families {

void build_beit(const ModelConfig& cfg, ModelTemplate& t);             // BeitModel and its four heads
void build_data2vec_vision(const ModelConfig& cfg, ModelTemplate& t);  // Data2VecVisionModel and its heads
void build_vit_mae(const ModelConfig& cfg, ModelTemplate& t);          // ViTMAEModel / ViTMAEForPreTraining
void build_vit_msn(const ModelConfig& cfg, ModelTemplate& t);  // ViTMSNModel / ViTMSNForImageClassification
void build_ijepa(const ModelConfig& cfg, ModelTemplate& t);    // IJepaModel / IJepaForImageClassification
void build_dinov2_with_registers(const ModelConfig& cfg, ModelTemplate& t);  // Dinov2WithRegisters*

}  // namespace ma::families
