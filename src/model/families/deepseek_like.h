// The DeepSeek-style MoE decoders of deepseek_like.cpp, for the composite models that embed one.
#pragma once
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// GLM-4.5V's language model (Glm4vMoeTextModel) under `prefix`: GLM-4.5's GQA decoder with biased q/k/v, no
// q/k norms and no multi-token-prediction layer, its mixture from first_k_dense_replace on. `tie`: the
// composite's tie_word_embeddings; `head`: false for the text model alone (no lm_head).
void glm4v_moe_language_model(const ModelConfig& text, ModelTemplate& t, const std::string& prefix, bool tie,
                              bool head = true);

// The latent-attention mixture a composite nests under `prefix` (`type` mistral4: Mistral Small 4;
// deepseek_v3: Mistral Large 3, Kimi-K2.5), with the composite's lm_head (tied when `tie`).
void mla_language_model(const ModelConfig& text, std::string_view type, ModelTemplate& t,
                        const std::string& prefix, bool tie);

// Remote-code relatives (registered, derived by hand, in remote_code.cpp's table):
// DeepSeek-MoE 16B (model_type deepseek, modeling_deepseek.py): Llama's attention, a softmax router over the
// routed experts and one shared MLP n_shared_experts wide, on the layers from first_k_dense_replace on that
// moe_layer_freq divides; a config with kv_lora_rank (the first DeepSeek-V2 upload) is built as V2.
void build_deepseek_moe(const ModelConfig& cfg, ModelTemplate& t);
// MiniCPM3 (modeling_minicpm.py): DeepSeek-V2's latent attention with a low-rank query in every layer, dense
// SwiGLU MLPs, the head tied by default.
void build_minicpm3(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
