// The Llama-layout decoder stack (embed_tokens, N x (self_attn + MLP + per-layer norms), final norm) that the
// text-only families in llama_like.cpp and the language models nested in multimodal configs both build, plus
// the config readers they share, so a nested text_config yields exactly the stack its text-only family does.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"
#include "model/families/decoder_common.h"
#include "model/model_template.h"

namespace ma::families {

enum class QkNorm : uint8_t {
  None,
  PerHead,     // RMSNorm over head_dim, shared by all heads (Qwen3, Gemma-3)
  FullWidth,   // RMSNorm over the whole q / k projection (OLMo-2)
  HeadMatrix,  // LayerNorm weight of shape [heads, head_dim] (Cohere)
  HeadList,    // one bias-free LayerNorm per head: q_layernorm.norms.{h} (StableLM's qk_layernorm)
};

enum class Mlp : uint8_t {
  Gated,       // gate_proj / up_proj / down_proj
  FusedGated,  // gate_up_proj [2I, H] / down_proj (Phi-3)
  Plain,       // c_fc / c_proj without a gate (StarCoder2)
  Ungated,     // up_proj / down_proj without a gate (Arcee's relu², Apertus' xIELU, Nemotron)
  Fc,          // fc1 / fc2 without a gate, biased with mlp_bias (nanochat: never; Cosmos3-Edge)
};

struct LlamaStyle {
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool norm_bias = false;    // LayerNorm with a bias (StarCoder2), else weight-only RMSNorm / LayerNorm
  bool norm_weights = true;  // false: LayerNorms without parameters (OLMo-1), so no norm tensor at all
  bool fused_qkv = false;    // one qkv_proj instead of q/k/v (Phi-3)
  QkNorm qk_norm = QkNorm::None;
  std::string_view q_norm = "q_norm", k_norm = "k_norm";  // Hunyuan: query_layernorm, key_layernorm
  Mlp mlp = Mlp::Gated;
  // Apertus' xIELU activation learns two scalars per MLP (act_fn.alpha_p, alpha_n) and saves two more as
  // buffers (beta, eps).
  bool xielu = false;
  // Norms each layer owns, in module order; Cohere runs attention and MLP in parallel after one norm, OLMo-2
  // only normalises outputs, Gemma-2/3 wrap the MLP in a second pair.
  std::vector<std::string_view> layer_norms{"input_layernorm", "post_attention_layernorm"};
  uint64_t sliding_window = 0;    // applied to every layer (Mistral v0.1 style) unless `windows` is set
  std::vector<uint64_t> windows;  // per-layer window (0: full attention), for alternating stacks
  // Tensors a family adds to every layer beyond these (GraniteSWA's attention sinks, BitNet's sub-norms,
  // DiffLlama's lambdas), given the layer's prefix ("model.layers.N").
  std::function<void(ModelTemplate&, const std::string& layer)> layer_extras;
};

// `prefix`embed_tokens.weight, `prefix`layers.N.*, `prefix`norm (prefix "model." for causal LMs, e.g.
// "model.language_model." inside a VLM). No lm_head: callers tie or add it where their class has one.
void llama_style_decoder(ModelTemplate& t, const std::string& prefix, const LlamaStyle& s);

// A causal LM: the decoder under "model." and its lm_head, tied or not.
void llama_causal_lm(ModelTemplate& t, const LlamaStyle& s);

// q/k/v and o biases from attention_bias (default false), as LlamaConfig and most of its copies read it.
LlamaStyle attention_bias_style(const ModelConfig& cfg);

// Dimensions (into t.arch) and style of the Llama-layout families a multimodal config may nest. Mistral's
// window default is the caller's: MistralForCausalLM here has always read a missing sliding_window as 0.
LlamaStyle read_llama_text(const ModelConfig& cfg, ModelTemplate& t);
LlamaStyle read_mistral_text(const ModelConfig& cfg, ModelTemplate& t, uint64_t default_window);
// Ministral3Config's (Ministral 3, Devstral 2): Mistral's tensors with its own defaults.
LlamaStyle read_ministral3_text(const ModelConfig& cfg, ModelTemplate& t);
LlamaStyle read_qwen2_text(const ModelConfig& cfg, ModelTemplate& t);
// CohereConfig's (Command R, Aya 23 / Expanse): attention and MLP side by side after one LayerNorm, q/k
// norms per head with use_qk_norm.
LlamaStyle read_cohere_text(const ModelConfig& cfg, ModelTemplate& t);
// Cohere2Config's (Command R7B, Command A, Aya Vision's language model): Cohere's parallel layer under one
// LayerNorm, head_dim from the heads, sliding and full attention interleaved.
LlamaStyle read_cohere2_text(const ModelConfig& cfg, ModelTemplate& t);
LlamaStyle read_qwen3_text(const ModelConfig& cfg, ModelTemplate& t);
// ERNIE 4.5's dense decoder (Ernie4_5Config's defaults, ERNIE-4.5-0.3B's sizes; one use_bias for every
// projection).
LlamaStyle read_ernie4_5_text(const ModelConfig& cfg, ModelTemplate& t);
// Hunyuan's dense decoder (HunYuanDenseV1): q/k norms per head named query_layernorm / key_layernorm, biases
// on attention_bias, none in the MLP; `d` the config class's defaults.
LlamaStyle read_hunyuan_dense_text(const ModelConfig& cfg, const DecoderDefaults& d, ModelTemplate& t);

// Families whose attention splits hidden_size into its heads whatever config.json says (Cohere2, StableLM).
void heads_split_hidden(const ModelConfig& cfg, ArchitectureRecord& a);

// StableLmConfig's defaults and layer (the StableLMEpoch remote code's too): LayerNorms with biases, q/k/v
// biased by use_qkv_bias, o_proj never.
LlamaStyle read_stablelm_text(const ModelConfig& cfg, ModelTemplate& t);

// Gemma-1/2/3 share their config defaults, apart from what each generation changed.
DecoderDefaults gemma_defaults();

// Per-layer windows of stacks that interleave sliding and full attention: `layer_types` when the config
// lists them, else every `period`-th layer is full attention and the others slide (Gemma-2: 2, Gemma-3/4: 6).
// `last_is_full`: the last layer attends fully whatever the list says (Gemma-4).
std::vector<uint64_t> interleaved_windows(const ModelConfig& cfg, uint64_t layers, uint64_t window,
                                          uint64_t period, bool last_is_full = false);

// EXAONE 4's and K-EXAONE's windows: none when sliding_window is null; else layer_types when listed, else a
// window of sliding_window (4096 when absent) on all but every sliding_window_pattern-th layer (4), or as a
// pattern string spells it ("LLLG": three local, one global).
std::vector<uint64_t> exaone4_windows(const ModelConfig& cfg, uint64_t layers);

// Gemma-2/3: sandwich norms around attention and MLP, sliding and full attention interleaved.
LlamaStyle gemma_sandwich_style(const ModelConfig& cfg, const ArchitectureRecord& a, uint64_t window,
                                uint64_t period);

// Gemma3TextModel under `prefix`, dimensions read from `cfg` with Gemma3TextConfig's defaults.
// `bidirectional_halves_window`: honour use_bidirectional_attention by halving sliding_window as
// Gemma3TextConfig does; the gemma3 (VLM) family has never applied it to its text_config.
void gemma3_text_decoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix,
                         bool bidirectional_halves_window);

}  // namespace ma::families
