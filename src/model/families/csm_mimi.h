// The builders of group csm_mimi (csm_mimi.cpp lists them): Kyutai's Mimi codec on its own (mimi_codec.cpp,
// reusing speech_asr's mimi_model) and Sesame's CSM (csm.cpp): a Llama-style backbone that predicts each
// audio frame's first Mimi code, a small depth decoder that predicts the other codes, and the Mimi codec
// itself.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_mimi(const ModelConfig& cfg, ModelTemplate& t);               // MimiModel (kyutai/mimi)
void build_csm(const ModelConfig& cfg, ModelTemplate& t);                // CsmForConditionalGeneration
void build_csm_depth_decoder(const ModelConfig& cfg, ModelTemplate& t);  // CsmDepthDecoderForCausalLM

}  // namespace ma::families
