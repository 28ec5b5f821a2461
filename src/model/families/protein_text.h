// The protein-language families in group protein_text (evolla.cpp): each file builds its model_types;
// protein_text.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_evolla(const ModelConfig& cfg, ModelTemplate& t);  // Evolla (Evolla-10B)

}  // namespace ma::families
