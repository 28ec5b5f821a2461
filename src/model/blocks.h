// Reusable building blocks for family templates: each adds the tensors one transformers module creates.
// Families compose these; none of them is a closed-form parameter formula.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "model/model_template.h"

namespace ma::blocks {

// prefix.weight [out, in] (+ prefix.bias [out]): nn.Linear.
void linear(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out, bool bias);
// prefix.weight [dim] (+ prefix.bias [dim]): LayerNorm / RMSNorm.
void norm(ModelTemplate& t, const std::string& prefix, uint64_t dim, bool bias);
// nn.Conv1d with a bias: weight [out, in / groups, kernel].
void conv1d(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out, uint64_t kernel,
            uint64_t groups = 1);
// nn.Conv2d with a bias: weight [out, in / groups, kernel, kernel].
void conv2d(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out, uint64_t kernel,
            uint64_t groups = 1);
// A weight-normed nn.Conv1d with a bias (torch.nn.utils.parametrizations.weight_norm over dim 0): its own
// bias, then the parametrization's magnitude g (prefix.parametrizations.weight.original0 [out, 1, 1]) and
// direction v (original1 [out, in, kernel]), the order named_parameters lists them in. Hub checkpoints
// written before torch 2.1 keep torch's old names prefix.weight_g / prefix.weight_v, which transformers
// renames on load.
void weight_normed_conv1d(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out,
                          uint64_t kernel);
// nn.ConvTranspose1d with a bias: weight [in, out, kernel].
void transposed_conv1d(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out,
                       uint64_t kernel);
// SnakeBeta's two learned vectors (the omni models' vocoders): prefix.alpha and prefix.beta.
void snake_beta(ModelTemplate& t, const std::string& prefix, uint64_t channels);
// name [rows, dim], flagged as an nn.Embedding weight.
TemplateTensor& embedding(ModelTemplate& t, const std::string& name, uint64_t rows, uint64_t dim);

struct Attention {
  uint64_t hidden = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t head_dim = 0;
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm =
      false;  // per-head RMSNorm on q and k (Qwen3, OLMo-2 style uses full width: see qk_norm_width)
  uint64_t qk_norm_width = 0;  // 0: head_dim
  std::string q = "q_proj", k = "k_proj", v = "v_proj", o = "o_proj";
  std::string q_norm = "q_norm", k_norm = "k_norm";
  bool key_first = false;  // registered k, v, q, o (GPT-J, BART's lineage) rather than q, k, v, o
};
// The separate-projection attention of Llama and most modern decoders, under `prefix` (e.g. "...self_attn").
void attention(ModelTemplate& t, const std::string& prefix, const Attention& a);

// gate_proj/up_proj [inter, hidden], down_proj [hidden, inter].
void gated_mlp(ModelTemplate& t, const std::string& prefix, uint64_t hidden, uint64_t inter,
               bool bias = false, const std::string& gate = "gate_proj", const std::string& up = "up_proj",
               const std::string& down = "down_proj");

// name, flagged as a weight of the routed experts (only top-k of them are active per token).
TemplateTensor& routed(ModelTemplate& t, const std::string& name, Shape shape);

// name [experts, leaves * rows, cols], flagged routed, that checkpoints store as one [rows, cols] tensor per
// expert and leaf: `disk_prefix`.{first + e}.{leaf}.weight (two leaves, gate and up, for a fused
// gate_up_proj).
TemplateTensor& per_expert_stored(ModelTemplate& t, const std::string& name, uint64_t experts, uint64_t rows,
                                  uint64_t cols, const std::string& disk_prefix,
                                  std::initializer_list<std::string_view> leaves, uint32_t first = 0);

// prefix.gate_up_proj and prefix.down_proj with the family's own (already stacked) layout, flagged routed.
// Checkpoints store each as one tensor: under `*_disk` when given (renamed or transposed), else as held.
void stacked_experts(ModelTemplate& t, const std::string& prefix, Shape gate_up, Shape down,
                     const std::optional<DiskPiece>& gate_up_disk = std::nullopt,
                     const std::optional<DiskPiece>& down_disk = std::nullopt);

// The router of DeepSeek-V3-style sigmoid routing: prefix.weight [E, H], plus the
// prefix.e_score_correction_bias buffer [E] when the family has one.
void expert_router(ModelTemplate& t, const std::string& prefix, uint64_t hidden, uint64_t experts,
                   bool correction_bias);

// Qwen-MoE's shared expert: a gated MLP every token goes through (prefix.shared_expert) scaled by a sigmoid
// gate (prefix.shared_expert_gate [1, H]).
void gated_shared_expert(ModelTemplate& t, const std::string& prefix, uint64_t hidden, uint64_t inter);

// How a checkpoint stores routed experts: one tensor per expert under `prefix`.{e}.
struct ExpertsOnDisk {
  std::string prefix;  // e.g. "model.layers.3.block_sparse_moe.experts"
  std::string gate = "gate_proj", up = "up_proj", down = "down_proj";
};
// transformers >= 5 fused experts: `prefix`.gate_up_proj [E, 2I, H] and `prefix`.down_proj [E, H, I],
// flagged routed, with their per-expert on-disk pieces.
void fused_experts(ModelTemplate& t, const std::string& prefix, uint64_t experts, uint64_t hidden,
                   uint64_t inter, const ExpertsOnDisk& disk);

}  // namespace ma::blocks
