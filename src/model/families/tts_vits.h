// The text-to-speech families in group tts_vits (vits.cpp): each file builds one model_type; tts_vits.cpp
// lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_vits(const ModelConfig& cfg, ModelTemplate& t);  // VitsModel (MMS-TTS, VITS)

}  // namespace ma::families
