// The decoders of group decoders_b (doge.cpp, gemma4_assistant.cpp, blt.cpp): each file builds its
// model_types; decoders_b.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_doge(const ModelConfig& cfg, ModelTemplate& t);                      // Doge (SmallDoge)
void build_gemma4_assistant(const ModelConfig& cfg, ModelTemplate& t);          // Gemma 4's drafters
void build_gemma4_unified_assistant(const ModelConfig& cfg, ModelTemplate& t);  // Gemma 4 12B's drafter
void build_blt(const ModelConfig& cfg, ModelTemplate& t);  // Byte Latent Transformer (1B, 7B)

}  // namespace ma::families
