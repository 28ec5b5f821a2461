// Gemma 4's text model (Gemma4TextModel, Gemma4UnifiedTextModel), built in multimodal.cpp beside the models
// that hold it, for the families that nest it elsewhere (the assistant models of gemma4_assistant.cpp).
#pragma once
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

struct Gemma4TextVariant {
  // Gemma4UnifiedTextModel (Gemma 4 12B): the same layers without per-layer embeddings or experts (its
  // config's keys for them are leftovers) and a window of 1,024 by default.
  bool unified = false;
  // An assistant (drafter) model: its config class reads num_kv_shared_layers 0 or absent as every layer,
  // and transformers saved its checkpoints, so a KV-shared layer stores no keys or values (Gemma 4's E2B
  // and E4B checkpoints do, as extras).
  bool assistant = false;
};

// The text model under `lm` ("model.", "model.language_model."): embed_tokens, the layers, norm and, with
// hidden_size_per_layer_input, the per-layer embeddings. Fills t.arch with its dimensions and decoder stack.
void gemma4_text_decoder(const ModelConfig& text, ModelTemplate& t, const std::string& lm,
                         Gemma4TextVariant variant = {});

}  // namespace ma::families
