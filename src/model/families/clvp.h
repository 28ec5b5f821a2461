// Group speech_tts: text-to-speech models whose parts are not an encoder-decoder pair: CLVP (Tortoise's
// speech-token decoder beside its contrastive text and speech encoders). speech_tts.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_clvp(const ModelConfig& cfg, ModelTemplate& t);  // clvp.cpp: ClvpModelForConditionalGeneration

}  // namespace ma::families
