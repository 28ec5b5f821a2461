// The hierarchical vision models of group vision_hier_b (levit.cpp, cvt.cpp, focalnet.cpp, pvt.cpp,
// glpn.cpp): each file builds one model family; vision_hier_b.cpp lists their model_types.
#pragma once

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_levit(const ModelConfig& cfg, ModelTemplate& t);     // LeViT (conv stem, BatchNorm'd attention)
void build_cvt(const ModelConfig& cfg, ModelTemplate& t);       // CvT (convolutional token embeddings)
void build_focalnet(const ModelConfig& cfg, ModelTemplate& t);  // FocalNet (focal modulation)
void build_pvt(const ModelConfig& cfg, ModelTemplate& t);       // Pyramid Vision Transformer v1
void build_glpn(const ModelConfig& cfg, ModelTemplate& t);      // GLPN (MiT encoder, depth decoder)

}  // namespace ma::families
