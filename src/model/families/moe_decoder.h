// The Llama-layout mixture-of-experts decoder that moe_decoders.cpp's and moe_variants.cpp's families
// parameterise: embed_tokens, N x (self_attn + dense MLP or sparse block + norms), final norm, lm_head, with
// how each family stores its experts in memory and in its Hub checkpoints.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"
#include "model/families/decoder_common.h"
#include "model/model_template.h"

namespace ma::families {

// How one family's routed experts look in memory and in its Hub checkpoints.
enum class ExpertStyle : uint8_t {
  PerExpert,      // memory: gate_up_proj [E, 2I, H] + down_proj [E, H, I]; disk: one tensor per expert
  Stacked,        // memory as above; disk: already stacked, under other names (Granite's input/output_linear)
  StackedHalves,  // memory as above; disk: gate and up stacked apart, [E, I, H] each (Step-3.5's moe.*_proj)
  Biased,   // gpt-oss: gate_up_proj [E, H, 2I] + down_proj [E, I, H] with per-expert biases, stored as is
  Grouped,  // Aria: fc1 [E, H, 2I] (gate and up) + fc2 [E, I, H], [E, in, out] without biases, stored as is
};

struct MoeLayout {
  std::string block = "mlp";       // in-memory module of the sparse block
  std::string disk_block = "mlp";  // the same module in Hub checkpoints
  std::string router = "gate";
  std::string disk_router;     // empty: same name as in memory
  bool experts_first = false;  // Qwen3MoeSparseMoeBlock registers its experts before its gate
  bool router_bias = false;
  ExpertStyle style = ExpertStyle::PerExpert;
  blocks::ExpertsOnDisk names;   // per-expert leaf names (prefix is filled per layer)
  bool correction_bias = false;  // MiniMax-M2: e_score_correction_bias buffer of the sigmoid router
  // Where that buffer sits under the block, in memory and on disk (Hy3's checkpoints: expert_bias).
  std::string correction_bias_name = "e_score_correction_bias";
  std::string disk_correction_bias_name = "e_score_correction_bias";
  bool shared_expert = false;   // Qwen2-MoE: a gated dense expert every token goes through
  bool shared_experts = false;  // ERNIE 4.5: `shared_experts`, a plain MLP every token goes through
  std::string shared_name = "shared_experts";  // Hunyuan: shared_mlp
  std::string disk_shared_name;                // empty: shared_name; Laguna's checkpoints: shared_expert
  uint64_t shared_inter = 0;
  // Laguna: the sigmoid router's score bias, a parameter [E] of the router (gate.e_score_correction_bias)
  // that checkpoints store as experts.e_score_correction_bias.
  bool router_score_bias = false;
  bool expert_bias = false;  // AFMoE: the router's score bias, a parameter [E] of the block (mlp.expert_bias)
  // ERNIE 4.5: the router's score bias, a parameter [1, E] under gate.moe_statics (mlp.moe_statics on disk).
  bool statics_bias = false;
  bool mxfp4 = false;  // gpt-oss Hub checkpoints: experts stored as MXFP4 blocks + scales
};

// A learned gate on the attention's output before o_proj, computed from the layer's input.
enum class OutputGate : uint8_t {
  None,
  PerHead,     // Laguna: self_attn.g_proj [heads, H], a softplus gate on each head's output
  PerElement,  // AFMoE: self_attn.gate_proj [heads x head_dim, H], a sigmoid gate on each output element
};

struct MoeDecoder {
  std::string root = "model.";  // of the language model's modules (MiniMax-M3: model.language_model.)
  blocks::Attention attn;
  bool sinks = false;  // gpt-oss: one learned attention-sink logit per head
  // Laguna: query heads per layer (num_attention_heads_per_layer); empty, attn.heads in every layer.
  std::vector<uint64_t> heads;
  OutputGate gate = OutputGate::None;
  // Norms each layer owns, in module order: FlexOlmo only normalises outputs, Cohere2-MoE runs attention and
  // MLP side by side after one norm.
  std::vector<std::string_view> layer_norms{"input_layernorm", "post_attention_layernorm"};
  bool norms_before_mlp = false;  // GraniteMoeDecoderLayer registers its norms before block_sparse_moe
  // AFMoE: pre_mlp_layernorm and post_mlp_layernorm around the MLP, beside the two norms of every family.
  bool mlp_norms = false;
  MoeLayout moe;
  std::vector<bool> sparse;       // per layer: sparse block (true) or dense MLP
  std::vector<uint64_t> windows;  // per layer sliding window, 0 for full attention
  uint64_t dense_inter = 0;       // intermediate size of the dense layers
  bool mlp_bias = false;          // biases of the dense and shared MLPs (ERNIE's use_bias)
  bool norm_bias = false;         // LayerNorms with a bias (Phi-3.5-MoE), else weight-only RMSNorms
  bool lm_head = true;            // false: a bare model class without the head (AriaModel)
  bool lm_head_bias = false;
  // GraniteMoeShared: beside the experts, shared_mlp.input_linear [2S, H] (gate and up) and output_linear
  // [H, S]; 0: none.
  uint64_t granite_shared = 0;
};

// Reads the first present key among `keys` (config aliases such as num_experts / num_local_experts).
uint64_t count_of(const ModelConfig& cfg, std::initializer_list<std::string_view> keys, uint64_t dflt);

// Fills the expert numbers of t.arch; `allow_zero` for families where zero experts means all-dense layers.
void read_experts(const ModelConfig& cfg, ModelTemplate& t,
                  std::initializer_list<std::string_view> expert_keys, uint64_t experts, uint64_t top_k,
                  uint64_t expert_inter, bool allow_zero = false);

// Per-layer sliding windows from `layer_types` when the config lists them, else from `sliding(i)`.
template <typename SlidingFn>
std::vector<uint64_t> layer_windows(const ModelConfig& cfg, uint64_t layers, uint64_t window,
                                    SlidingFn sliding) {
  std::vector<std::string> types = cfg.strings("layer_types");
  if (!types.empty() && types.size() != layers)
    cfg.fail("layer_types", "must list one type per layer (" + std::to_string(layers) + ")");
  std::vector<uint64_t> w(layers, 0);
  for (uint64_t i = 0; i < layers; ++i) {
    bool slide = types.empty() ? sliding(i) : types[i] == "sliding_attention";
    if (slide) w[i] = window;
  }
  return w;
}

std::vector<uint64_t> uniform_windows(uint64_t layers, uint64_t window);

void build_moe_decoder(ModelTemplate& t, const MoeDecoder& d);
// A decoder whose every layer is sparse, with full attention unless `windows` says otherwise.
MoeDecoder all_sparse(const ArchitectureRecord& a);
// Mixtral's Hub layout, shared by MiniMax-M2: block_sparse_moe.{gate, experts.N.w1/w3/w2}.
MoeLayout block_sparse_moe_layout();
// Qwen-MoE: layers listed in mlp_only_layers, or off the decoder_sparse_step rhythm, use a dense MLP.
std::vector<bool> qwen_sparse_layers(const ModelConfig& cfg, const ArchitectureRecord& a);
// Ernie4_5_MoeConfig's defaults (ERNIE-4.5-21B-A3B), which ERNIE-4.5-VL's text config shares (28B-A3B).
DecoderDefaults ernie4_5_moe_defaults();

}  // namespace ma::families
