// The audio language models of group audio_llms (voxtral_realtime.cpp, audioflamingo3.cpp, musicflamingo.cpp,
// glmasr.cpp): an audio encoder, a projector into the language model's width and a causal LM, each with its
// encoder (and Voxtral Realtime's language model) alone under the sub-config's model_type. audio_llms.cpp
// lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_voxtral_realtime(const ModelConfig& cfg, ModelTemplate& t);          // Voxtral Realtime
void build_voxtral_realtime_encoder(const ModelConfig& cfg, ModelTemplate& t);  // its audio encoder alone
void build_voxtral_realtime_text(const ModelConfig& cfg, ModelTemplate& t);     // its language model alone
void build_audioflamingo3(const ModelConfig& cfg, ModelTemplate& t);            // Audio Flamingo 3
void build_audioflamingo3_encoder(const ModelConfig& cfg, ModelTemplate& t);    // its audio encoder alone
void build_musicflamingo(const ModelConfig& cfg, ModelTemplate& t);             // Music Flamingo
void build_glmasr(const ModelConfig& cfg, ModelTemplate& t);                    // GLM-ASR
void build_glmasr_encoder(const ModelConfig& cfg, ModelTemplate& t);            // its audio encoder alone

// AudioFlamingo3ForConditionalGeneration's modules, which MusicFlamingoForConditionalGeneration inherits (its
// rotary time embedding holds buffers only): the Whisper-style encoder `audio` describes under audio_tower,
// the causal LM text_config names (Qwen2, the class default) under language_model and a two-linear projector.
// `cls`: the class the template mirrors.
void audio_flamingo_model(const ModelConfig& cfg, const ModelConfig& audio, ModelTemplate& t,
                          const char* cls);

}  // namespace ma::families
