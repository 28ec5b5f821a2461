// The architecture record: the one description of a model that every analysis, report and diagram reads.
// Family builders fill it once from config.json (together with the tensor template, model/model_template.h);
// without a config the inventory infers what the tensor names tell. Analyses never open the config: every
// fact they need is a field here, under one name, with one spelling of each category (the enums below, each
// with one name table in architecture.cpp).
#pragma once
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "model/context_declaration.h"
#include "model/declared_quantization.h"

namespace ma {

// ---- Categories ----

// The stacks a model is made of. The language model's layers are the decoder (or, for encoder-only models,
// the encoder); the towers turn images or audio into embeddings the projector maps to the decoder's width;
// the MTP module is DeepSeek's multi-token-prediction layer, stored but not part of what transformers builds.
enum class StackRole : uint8_t { Decoder, Encoder, Vision, Audio, Projector, Mtp };
std::string_view stack_role_name(StackRole r);  // decoder, encoder, vision, audio, projector, mtp

// What mixes information across positions in a layer.
// ShortConv: LFM2's gated short convolution (in_proj to B, C, x; C * conv(B * x) over the last few tokens;
// out_proj), whose state is its conv window. RgLru: Griffin's recurrent block (RecurrentGemma): a depthwise
// conv and a real-gated linear recurrence over lru_width channels, whose state is the conv window and one
// vector. Rwkv: RWKV-4's time mixing, a WKV recurrence per channel (a decayed, exponentially weighted sum of
// values over the past), whose state is, per layer, the last token's input to the time and channel mixing
// and the WKV numerator, denominator and running maximum.
// Mlstm: xLSTM's matrix-memory LSTM, per head a key x value matrix updated through exponential input and
// forget gates, with a normaliser vector and a stabilising maximum.
enum class Mixer : uint8_t { Attention, Mamba, Mamba2, LinearAttention, ShortConv, RgLru, Rwkv, Mlstm, None };
// attention, mamba, mamba2, linear-attention, short-conv, rg-lru, rwkv, mlstm, none
std::string_view mixer_name(Mixer m);
std::string_view mixer_title(Mixer m);  // for people: Attention, Mamba, Mamba-2, Linear attention, ...

// Softmax attention by how keys and values are shared: one K/V head per query head (MHA), per group (GQA),
// one for all (MQA), or a compressed latent (MLA, DeepSeek-V2/V3).
enum class AttentionKind : uint8_t { Mha, Gqa, Mqa, Mla };
std::string_view attention_kind_name(AttentionKind k);               // mha, gqa, mqa, mla
AttentionKind attention_kind_of(uint64_t heads, uint64_t kv_heads);  // MHA / GQA / MQA from head counts

// How far back a softmax-attention layer looks: the whole sequence, a sliding window, or the current chunk
// of a fixed size (Llama-4's local attention).
enum class Span : uint8_t { Full, Sliding, Chunked };
std::string_view span_name(Span s);  // full, sliding, chunked

enum class Ffn : uint8_t { Dense, Moe, None };
std::string_view ffn_name(Ffn f);  // dense, moe, none

enum class NormKind : uint8_t { Unknown, RmsNorm, LayerNorm };
std::string_view norm_kind_name(NormKind n);  // "" (unknown), rmsnorm, layernorm

// How token positions enter the model: rotary embeddings, a learned table, ALiBi biases, T5's relative
// buckets, nothing (Mamba; NoPE attention beside Mamba layers), or a fixed sinusoidal table added to the
// embeddings (Pegasus, Marian, M2M100).
enum class PositionKind : uint8_t { Unknown, Rope, Learned, Alibi, Relative, None, Sinusoidal };
// "" (unknown), rope, learned, alibi, relative, none, sinusoidal
std::string_view position_kind_name(PositionKind p);

struct RopeSpec {
  std::string type;  // default, linear, dynamic, yarn, llama3, longrope, mrope, ...
  double theta = 0;  // 0: not given in the config
  std::optional<double> factor;
  std::optional<uint64_t> original_max_position_embeddings;
  std::optional<double> partial_rotary_factor;
  // Base of the sliding-window layers when it differs from the global one (Gemma-3 rope_local_base_freq,
  // Gemma-4 rope_parameters.sliding_attention).
  std::optional<double> local_theta;
};

// ---- Per layer ----

struct AttentionShape {
  AttentionKind kind = AttentionKind::Mha;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;    // of queries and keys
  uint64_t v_head_dim = 0;  // of values (MLA); 0: head_dim
  Span span = Span::Full;
  uint64_t window = 0;  // tokens a sliding or chunked layer keeps; 0 for full attention
  // MLA: the cache holds the kv_lora_rank latent plus one shared rope key of qk_rope_head_dim.
  uint64_t kv_lora_rank = 0, q_lora_rank = 0, qk_rope_head_dim = 0, qk_nope_head_dim = 0;
  // The sparse-attention indexer of DeepSeek-V3.2 and GLM-5 (DSA) caches its own keys per token.
  uint64_t indexer_heads = 0, indexer_head_dim = 0, indexer_topk = 0;
  // Gemma-3n/4 KV sharing: the layer reads an earlier layer's cache and stores none of its own.
  bool shares_cache = false;
  // Gemma-4 global layers with attention_k_eq_v: V is K (transformers' cache still stores both).
  bool keys_are_values = false;
  // DeepSeek-V4: one shared key-value head whose cache holds it once (values point at the keys).
  bool kv_stored_once = false;
  // DeepSeek-V4's compressed attention: beside its window of raw keys, the layer caches one entry of
  // compressed_width values (the compressor's, plus its indexer's keys) per compress_ratio tokens of the
  // whole context. 0: none.
  uint64_t compress_ratio = 0, compressed_width = 0;
  // Attention modules of this shape the layer runs one after the other, each with a cache of its own
  // (LongCat-Flash: two per layer, each followed by a dense MLP, beside one mixture of experts).
  uint32_t modules = 1;
};

// The recurrent state of a Mamba, Mamba-2, gated-DeltaNet (linear attention), short-convolution or RG-LRU
// mixer.
struct StateShape {
  // d_inner (Mamba: expand x hidden; Mamba-2: heads x head_dim); the conv's channels (LFM2); lru_width
  // (RG-LRU)
  uint64_t inner = 0;
  uint64_t state = 0;                // d_state
  uint64_t conv_kernel = 0;          // the conv state keeps the whole kernel window
  uint64_t groups = 0;               // Mamba-2 B/C groups
  uint64_t heads = 0, head_dim = 0;  // Mamba-2; RG-LRU: heads = its gates' diagonal blocks
  uint64_t dt_rank = 0;              // Mamba-1: rank of the low-rank dt projection
  uint64_t chunk_size = 0;           // Mamba-2: the chunked scan's chunk (prefill); 0: the config names none
  // Gated DeltaNet (Qwen3-Next, Qwen3.5): q/k heads, v heads and their dims.
  uint64_t key_heads = 0, value_heads = 0, key_head_dim = 0, value_head_dim = 0;
};

struct FfnShape {
  Ffn kind = Ffn::Dense;
  bool gated = true;          // gate and up projections (SwiGLU, GeGLU); false: up only (GELU MLP, relu²)
  uint64_t intermediate = 0;  // dense width
  // Mixture of experts
  uint64_t experts = 0, top_k = 0;
  uint64_t expert_intermediate = 0;
  uint64_t shared_experts = 0;       // how many shared experts (fused into one MLP by most families)
  uint64_t shared_intermediate = 0;  // width of all shared experts together; 0: none
  // Weight matrices per expert: 3 for gated experts (gate, up, down), 2 for ungated ones (relu², GELU).
  uint32_t expert_matrices = 3;
  // Weightless identity experts the router picks among beside the routed ones (LongCat-Flash's
  // zero-computation experts): a token runs between 0 and top_k routed experts.
  uint64_t zero_experts = 0;
};

struct LayerSpec {
  Mixer mixer = Mixer::Attention;
  AttentionShape attention;  // mixer == Attention
  StateShape state;          // mixer or parallel == Mamba, Mamba2, LinearAttention, ShortConv or RgLru
  // A second mixer on the same input beside attention, the two outputs summed (Falcon-H1: Mamba-2 in every
  // layer); its shape in `state`. None for a layer with one mixer.
  Mixer parallel = Mixer::None;
  // Zamba2: the second mixer runs after the attention block, on its output, instead of beside it.
  bool mixers_in_sequence = false;
  FfnShape ffn;
  std::optional<AttentionShape> cross_attention;  // decoder layers of encoder-decoders
  // "attention+dense", "mamba2", "moe", "mamba+moe", "attention+cross-attention+dense",
  // "attention+mamba2+dense" (parallel mixers): the non-empty parts joined by '+'.
  std::string type() const;
};

// ---- Per stack ----

struct StackSpec {
  StackRole role = StackRole::Decoder;
  std::string path;  // in-memory name prefix of its layers ("model.layers", "vision_tower.encoder.layers");
                     // of the module for a projector
  uint64_t first_index =
      0;  // index of its first layer under `path` (DeepSeek's MTP layer follows the decoder)
  uint64_t hidden = 0;
  std::vector<LayerSpec> layers;
  // Towers: the input they embed.
  uint64_t patch_size = 0;  // vision: pixels per patch side (temporal patches aside)
  uint64_t image_size = 0;  // vision: pixels per image side the position table covers; 0: dynamic
  uint64_t mel_bins = 0;    // audio: input features per frame
  uint64_t positions = 0;   // encoder / audio: input positions it attends (Whisper 1,500 frames); 0: the
                            // input length (T5's relative positions)
  // Vision: the features one image leaves the tower as (a ViT's patches and class tokens, a Swin's last
  // stage's patches); 0 unknown. An encoder-decoder composite's cross-attention reads them (its `positions`).
  uint64_t output_positions = 0;
  // ALBERT: every layer runs the same weights (a group stored once), so its parameters are not per layer.
  bool shared_weights = false;
};

// ---- The record ----

struct ArchitectureRecord {
  std::string model_type;       // config.json model_type (of the language model for multimodal configs)
  std::string root_model_type;  // the config's own model_type ("llava" when the language model is "llama")
  std::string architecture;     // the transformers class the template mirrors, e.g. "LlamaForCausalLM"
  bool hand_derived = false;    // no transformers class: derived by hand from the model's remote code
  // As config.json states them, for every config (naming a model needs no template).
  std::vector<std::string> architectures;  // "architectures": the transformers classes the config names
  std::string vision_key;                  // the config key that holds or names a vision tower; "" for none
  ContextDeclaration context;              // lengths: declared, rope-scaled, relative, encoder frames

  // The language model's dimensions as the config states them: the defaults of its layers (a layer's own
  // shape, in its LayerSpec, may differ).
  uint64_t hidden_size = 0;
  uint64_t num_layers = 0;
  uint64_t vocab_size = 0;
  uint64_t num_attention_heads = 0;
  uint64_t num_key_value_heads = 0;
  uint64_t head_dim = 0;
  uint64_t intermediate_size = 0;
  uint64_t max_position_embeddings = 0;
  uint64_t num_experts = 0;  // routed experts per MoE layer (0: dense)
  uint64_t experts_per_token = 0;
  uint64_t num_shared_experts = 0;
  uint64_t moe_intermediate_size = 0;
  // Multi-token-prediction layers the config declares (num_nextn_predict_layers, mtp_num_hidden_layers):
  // transformers builds none of them; a template that knows their tensors lists them as extras.
  uint64_t mtp_layers_declared = 0;
  bool tie_word_embeddings = false;
  // config.json use_cache (PretrainedConfig's default: true): whether generation keeps the KV cache. A
  // lenient read: a value that is not a boolean counts as absent.
  bool use_cache = true;
  std::string torch_dtype;  // as declared in config.json ("bfloat16"), empty if absent
  // The dtype the unquantized float weights are stored in (model/stored_dtype.h): the declared one, else what
  // the checkpoint shows; unset when nothing tells (a config alone without torch_dtype).
  std::optional<DType> stored_dtype;
  std::string stored_dtype_source;
  // How the blocks are built, as far as they are the same in every layer. A builder sets what its family
  // fixes (BLOOM's ALiBi, Cohere's bias-free LayerNorm, BERT's post-norm); the rest is derived from the
  // config and the template's tensors after it ran (model/record_facts.h).
  NormKind norm = NormKind::Unknown;
  std::optional<double> norm_eps;
  bool post_norm = false;  // norms after the residual add (the original Transformer, BERT, BART)
  // Where a pre-norm layer's norms sit, from its tensors' names: a norm on each sub-layer's input (x +
  // f(norm(x)), most decoders), and one on its output before the add (Gemma-2/3/4's "sandwich", OLMo-2's and
  // EXAONE-4's output-only norms: post_feedforward_layernorm).
  bool norm_before_sublayer = true;
  bool norm_after_sublayer = false;
  std::string activation;  // of the MLP as the config names it (silu, gelu_pytorch_tanh, ...); "" unknown
  PositionKind position = PositionKind::Unknown;
  std::optional<RopeSpec> rope;  // with PositionKind::Rope
  double attention_softcap = 0;  // attn_logit_softcapping (Gemma-2): tanh cap on the scores; 0: none
  bool attention_bias = false;
  bool mlp_bias = false;

  // What config.json (or hf_quant_config.json, quantize_config.json) declares about quantization.
  std::optional<DeclaredQuantization> quantization;

  // The recurrent state's dtype where the config names one (vLLM's mamba_ssm_cache_dtype, Qwen3.5's
  // mamba_ssm_dtype); unset: the model's dtype.
  std::optional<DType> ssm_cache_dtype;

  // A deque: add_stack keeps references to the stacks already added valid.
  std::deque<StackSpec> stacks;

  StackSpec& add_stack(StackRole role, std::string path, uint64_t hidden = 0);
  const StackSpec* stack(StackRole role) const;
  StackSpec* stack(StackRole role);
  // The language model's stack: the decoder, else the encoder (BERT). Null when there is neither.
  const StackSpec* main_stack() const;
  StackSpec* main_stack();
  // The main stack's layers; empty when there is none.
  const std::vector<LayerSpec>& layers() const;
};

}  // namespace ma
