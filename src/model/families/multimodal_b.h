// The model_types of group multimodal_b (colvision.cpp, blip_2_qformer.cpp, vilt.cpp,
// visual_bert.cpp, bros.cpp): each file builds its
// model_types; multimodal_b.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_colpali(const ModelConfig& cfg, ModelTemplate& t);         // ColPaliForRetrieval
void build_colqwen2(const ModelConfig& cfg, ModelTemplate& t);        // ColQwen2ForRetrieval
void build_blip_2_qformer(const ModelConfig& cfg, ModelTemplate& t);  // Blip2QFormerModel configured alone
void build_vilt(const ModelConfig& cfg, ModelTemplate& t);            // ViLT and its task heads
void build_visual_bert(const ModelConfig& cfg, ModelTemplate& t);     // VisualBERT and its task heads
void build_bros(const ModelConfig& cfg, ModelTemplate& t);            // BROS and its token heads

}  // namespace ma::families
