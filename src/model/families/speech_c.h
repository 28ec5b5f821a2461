// The speech encoders in group speech_c (sew_d.cpp, audio_spectrogram_transformer.cpp): each file builds its
// model_type; speech_c.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_sew_d(const ModelConfig& cfg, ModelTemplate& t);                          // SEW-D
void build_audio_spectrogram_transformer(const ModelConfig& cfg, ModelTemplate& t);  // AST

}  // namespace ma::families
