// The vision models of group vision_e (dinat.cpp, swin2sr.cpp, hgnet_v2.cpp, textnet.cpp): each file builds
// one model family; vision_e.cpp lists their model_types.
#pragma once

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_dinat(const ModelConfig& cfg, ModelTemplate& t);     // DiNAT (dilated neighborhood attention)
void build_swin2sr(const ModelConfig& cfg, ModelTemplate& t);   // Swin2SR (Swin V2 image super-resolution)
void build_hgnet_v2(const ModelConfig& cfg, ModelTemplate& t);  // HGNetV2 (PP-HGNetV2, D-FINE's backbone)
void build_textnet(const ModelConfig& cfg, ModelTemplate& t);   // TextNet (FAST's RepVGG-style backbone)

}  // namespace ma::families
