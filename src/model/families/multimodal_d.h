// The model_types of group multimodal_d (flava.cpp, bridgetower.cpp): each file builds its model_type;
// multimodal_d.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_flava(const ModelConfig& cfg, ModelTemplate& t);        // FlavaModel / FlavaForPreTraining
void build_bridgetower(const ModelConfig& cfg, ModelTemplate& t);  // BridgeTowerModel and its three heads

}  // namespace ma::families
