// wav2vec 2.0's relatives in group speech_w2v (wavlm.cpp, data2vec_audio.cpp, unispeech.cpp, sew.cpp), built
// on wav2vec2_encoder.h's shared body: each file builds its model_types; speech_w2v.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_wavlm(const ModelConfig& cfg, ModelTemplate& t);           // WavLM
void build_data2vec_audio(const ModelConfig& cfg, ModelTemplate& t);  // data2vec-audio
void build_unispeech(const ModelConfig& cfg, ModelTemplate& t);       // UniSpeech
void build_unispeech_sat(const ModelConfig& cfg, ModelTemplate& t);   // UniSpeech-SAT
void build_sew(const ModelConfig& cfg, ModelTemplate& t);             // SEW

// wav2vec 2.0-Conformer (wav2vec2_conformer.cpp) and Wav2Vec2-BERT (wav2vec2_bert.cpp, which shares only
// the Conformer layers of wav2vec2_conformer_parts.h).
void build_wav2vec2_conformer(const ModelConfig& cfg, ModelTemplate& t);
void build_wav2vec2_bert(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
