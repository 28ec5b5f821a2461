// The DeepSeek-style MoE decoders of deepseek_like.cpp, for the composite models that embed one.
#pragma once
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// GLM-4.5V's language model (Glm4vMoeTextModel) under `prefix`: GLM-4.5's GQA decoder with biased q/k/v, no
// q/k norms and no multi-token-prediction layer, its mixture from first_k_dense_replace on. `tie`: the
// composite's tie_word_embeddings.
void glm4v_moe_language_model(const ModelConfig& text, ModelTemplate& t, const std::string& prefix, bool tie);

}  // namespace ma::families
