// The audio-text models in group speech_d (clap.cpp): each file builds its model_types; speech_d.cpp lists
// them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_clap(const ModelConfig& cfg, ModelTemplate& t);              // CLAP (ClapModel)
void build_clap_text_model(const ModelConfig& cfg, ModelTemplate& t);   // ClapTextModel (+ WithProjection)
void build_clap_audio_model(const ModelConfig& cfg, ModelTemplate& t);  // ClapAudioModel (+ WithProjection)

}  // namespace ma::families
