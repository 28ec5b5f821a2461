// The vision models of group vision_d (hiera.cpp, vjepa2.cpp, swiftformer.cpp): each file builds one model
// family; vision_d.cpp lists their model_types.
#pragma once

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_hiera(const ModelConfig& cfg, ModelTemplate& t);        // Hiera (mask-unit attention stages)
void build_vjepa2(const ModelConfig& cfg, ModelTemplate& t);       // V-JEPA 2 (video encoder + predictor)
void build_swiftformer(const ModelConfig& cfg, ModelTemplate& t);  // SwiftFormer (additive attention)

}  // namespace ma::families
