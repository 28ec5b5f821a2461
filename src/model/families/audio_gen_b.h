// The builders of group audio_gen_b (audio_gen_b.cpp lists them): Pop2Piano (encoders_t5.cpp: T5 with a
// composer embedding prepended to the encoder's input) and Moshi (moshi.cpp: Kyutai's speech-to-speech model,
// a temporal transformer, a per-codebook depth decoder and the Mimi codec) and Dia (dia.cpp: Nari Labs' text
// encoder and multi-channel audio decoder).
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_pop2piano(const ModelConfig& cfg, ModelTemplate& t);  // Pop2PianoForConditionalGeneration
void build_moshi(const ModelConfig& cfg, ModelTemplate& t);      // MoshiForConditionalGeneration
void build_dia(const ModelConfig& cfg, ModelTemplate& t);        // DiaForConditionalGeneration

}  // namespace ma::families
