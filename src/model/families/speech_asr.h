// The speech recognizers of group speech_asr (moonshine.cpp, granite_speech.cpp, kyutai_speech_to_text.cpp,
// parakeet.cpp): each file builds its model_types; speech_asr.cpp lists them. mimi.cpp builds the codec
// Kyutai's model nests.
#pragma once
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_moonshine(const ModelConfig& cfg, ModelTemplate& t);              // Moonshine (tiny, base)
void build_granite_speech(const ModelConfig& cfg, ModelTemplate& t);         // Granite Speech 3.x
void build_kyutai_speech_to_text(const ModelConfig& cfg, ModelTemplate& t);  // Kyutai STT
void build_parakeet_encoder(const ModelConfig& cfg, ModelTemplate& t);       // ParakeetEncoder alone
void build_parakeet_ctc(const ModelConfig& cfg, ModelTemplate& t);           // Parakeet CTC (0.6B, 1.1B)

// MimiModel's tensors under `prefix` ("codec_model."), read from a MimiConfig with its defaults
// (kyutai/mimi's); its two transformers are recorded as audio stacks.
void mimi_model(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t);

}  // namespace ma::families
