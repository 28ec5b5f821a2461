// Architectures transformers cannot build without the model repository's own modeling code
// (trust_remote_code): ChatGLM, Qwen-1, Baichuan, InternLM 1/2, StableLM-epoch, MiniCPM / MiniCPM-V /
// MiniCPM3, EXAONE 3, DeciLM, DeepSeek-MoE, NomicBERT, Kimi-K2, Falcon's RefinedWeb, MiMo, Nemotron-NAS,
// Ling 2.0, InternVL and Phi-3-vision.
// Each template is derived by hand from the nn.Module tree that repository's code builds (names, shapes,
// ties, saved buffers) and is marked ArchitectureRecord::hand_derived. The group's table is remote_code()
// (family_groups.h); its builders live one file per family group.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families::remote {

// remote_code_qwen.cpp: Qwen-1 (QWenLMHeadModel), and Qwen-VL's visual module beside it.
void build_qwen(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_glm.cpp: ChatGLM-6B (GLM-1) and ChatGLM2/3, CodeGeeX2, GLM-4 (ChatGLMForConditionalGeneration).
void build_chatglm(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_llama.cpp: the Llama-shaped ones.
void build_baichuan(const ModelConfig& cfg, ModelTemplate& t);
void build_internlm(const ModelConfig& cfg, ModelTemplate& t);
void build_internlm2(const ModelConfig& cfg, ModelTemplate& t);
void build_stablelm_epoch(const ModelConfig& cfg, ModelTemplate& t);
void build_minicpm(const ModelConfig& cfg, ModelTemplate& t);
void build_exaone(const ModelConfig& cfg, ModelTemplate& t);
void build_deci(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_minicpmv.cpp: MiniCPM-V 2 (MiniCPM + timm SigLIP tower + perceiver resampler).
void build_minicpmv(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_nemotron_nas.cpp: Nemotron-NAS (DeciLMForCausalLM), each layer shaped by block_configs.
void build_nemotron_nas(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_bailing.cpp: Ling 2.0 / Ring 2.0 (BailingMoeV2ForCausalLM), under model_type bailing_moe or
// bailing_moe_v2; Ling 1.0's BailingMoeForCausalLM is refused.
void build_bailing_moe(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_internvl.cpp: InternVL's own checkpoints (InternVLChatModel): InternViT, the mlp1 projector and
// the llm_config's causal LM under language_model.
void build_internvl_chat(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_phi3v.cpp: Phi-3 / Phi-3.5-vision (Phi3VForCausalLM): Phi-3-mini and its CLIP image embedding.
void build_phi3_v(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_encoders.cpp: NomicBERT (NomicBertModel as from_pretrained builds it, NomicBertForPreTraining).
void build_nomic_bert(const ModelConfig& cfg, ModelTemplate& t);
// remote_code_reuse.cpp: layouts an existing builder already makes, under another model_type.
void build_kimi_k2(const ModelConfig& cfg, ModelTemplate& t);
void build_refinedweb(const ModelConfig& cfg, ModelTemplate& t);
void build_refinedweb_model(const ModelConfig& cfg, ModelTemplate& t);
void build_mimo(const ModelConfig& cfg, ModelTemplate& t);

// Shared by the files above (remote_code.cpp).

// Error(Unsupported, "unsupported architecture: <what>") at `key`: a variant of the family whose code we have
// not derived, never guessed.
[[noreturn]] void unsupported(const ModelConfig& cfg, std::string_view key, const std::string& what);
// `name` [vocab, hidden], or, when `tie`, a tied copy of `embedding` that checkpoints of these models often
// store anyway (expected, not an unknown tensor).
void output_head(ModelTemplate& t, const std::string& name, const std::string& embedding, bool tie);
// A saved rotary inv_freq buffer: torch.arange(0, dim, 2) has ceil(dim / 2) entries.
TemplateTensor& inv_freq_buffer(ModelTemplate& t, const std::string& name, uint64_t dim);
// Appends one attention + dense-MLP layer to the decoder stack (added first with t.arch.add_stack).
void push_attention_layer(ModelTemplate& t, uint64_t heads, uint64_t kv_heads);
// The perceiver resampler of Qwen-VL (visual.py) that MiniCPM-V 2 reuses, Resampler(grid_size =
// isqrt(query_num), embed_dim = e, kv_dim): grid^2 learned queries cross-attend, through
// nn.MultiheadAttention, to the tower's features projected to e wide (kv_proj, unless kv_dim is e). Its
// pos_embed is a frozen nn.Parameter (requires_grad off), still one of the model's parameters. With
// `own_output` it ends in its own ln_post and proj [e, e] (MiniCPM-V); Qwen-VL keeps those on the tower.
void resampler(ModelTemplate& t, const std::string& p, uint64_t query_num, uint64_t e, uint64_t kv_dim,
               bool own_output);
// Runs the builder registered for `model_type` (the layout is the same under another name).
void build_as(std::string_view model_type, const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families::remote
