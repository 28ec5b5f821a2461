// The recent vision-language families in group vlm_2026 (step3p7.cpp, muse_glimmer.cpp, cosmos3_edge.cpp,
// video_llama_3.cpp): each file builds its model_types; vlm_2026.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_step3p7(const ModelConfig& cfg, ModelTemplate& t);               // Step-3.7-Flash
void build_video_llama_3(const ModelConfig& cfg, ModelTemplate& t);         // VideoLLaMA3 (2B, 7B)
void build_video_llama_3_vision(const ModelConfig& cfg, ModelTemplate& t);  // its vision encoder alone
void build_muse_glimmer(const ModelConfig& cfg, ModelTemplate& t);          // Muse Glimmer
void build_muse_glimmer_text(const ModelConfig& cfg, ModelTemplate& t);     // its text model alone
void build_cosmos3_edge(const ModelConfig& cfg, ModelTemplate& t);          // Cosmos3-Edge
void build_cosmos3_edge_text(const ModelConfig& cfg, ModelTemplate& t);     // its text model alone
void build_cosmos3_edge_vision(const ModelConfig& cfg, ModelTemplate& t);   // its vision tower alone

}  // namespace ma::families
