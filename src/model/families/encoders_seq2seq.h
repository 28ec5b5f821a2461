// Encoder-decoder families of the encoders group: BART, T5, Whisper. Registered in encoders.cpp's table.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_bart(const ModelConfig& cfg, ModelTemplate& t);
void build_t5(const ModelConfig& cfg, ModelTemplate& t);
void build_whisper(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
