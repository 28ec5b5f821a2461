// Modules shared by the Qwen hybrid and vision-language families: the three generations of Qwen vision
// towers, the gated-delta-net linear attention, the gated (output-gated) full attention and the sparse MoE
// block with its optional shared expert.
#pragma once
#include <cstdint>
#include <string>

#include "model/blocks.h"
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families::qwen {

// Which vision tower: Qwen2-VL (LayerNorm, fc1/fc2 MLP), Qwen2.5-VL (RMSNorm, gated MLP) or Qwen3-VL /
// Qwen3.5 (LayerNorm, learned position table, linear_fc merger, optional deepstack mergers).
enum class VisionKind : uint8_t { Qwen2, Qwen2_5, Qwen3 };

struct VisionTower {
  VisionKind kind = VisionKind::Qwen3;
  uint64_t depth = 0;
  uint64_t hidden = 0;  // width of the vision blocks
  uint64_t heads = 0;
  uint64_t kv_heads = 0;      // key/value heads of the fused qkv (EXAONE 4.5's GQA); 0: heads
  uint64_t intermediate = 0;  // MLP width of the vision blocks
  uint64_t in_channels = 0;
  uint64_t patch = 0;
  uint64_t temporal_patch = 0;
  uint64_t merge = 0;       // spatial_merge_size: merger input is hidden * merge^2
  uint64_t out_hidden = 0;  // merger output: the language model's hidden size
  uint64_t positions = 0;   // learned position table rows (Qwen3 only)
  uint64_t deepstack = 0;   // deepstack mergers (Qwen3-VL only)
  // Qwen3-Omni's spelling of the Qwen3 mergers: ln_q, mlp.0, mlp.2 (Qwen2-VL's names), in merger_list.
  bool omni_names = false;
  // Qwen2.5-Omni's copy of the Qwen2.5-VL tower projects q, k and v with three biased linears (attn.q,
  // attn.k, attn.v) where Qwen2.5-VL fuses them into attn.qkv.
  bool split_qkv = false;
};

// Reads `vision` (the vision_config object, or an empty one) with the defaults of the kind's config class.
// Qwen3.5 towers have no deepstack mergers whatever the config lists: they pass `with_deepstack = false`.
VisionTower read_vision(const ModelConfig& vision, VisionKind kind, bool with_deepstack);
// One block of the tower under `p` ("model.visual.blocks.0"): norms, fused qkv and proj, the kind's MLP.
void vision_block(ModelTemplate& t, const std::string& p, const VisionTower& v);
// All tensors of the tower under `prefix` (e.g. "model.visual").
void vision_tower(ModelTemplate& t, const std::string& prefix, const VisionTower& v);

struct GatedDeltaNet {
  uint64_t hidden = 0;
  uint64_t key_heads = 0;
  uint64_t value_heads = 0;
  uint64_t key_head_dim = 0;
  uint64_t value_head_dim = 0;
  uint64_t conv_kernel = 0;
  bool split_projections = false;  // Qwen3.5: in_proj_qkv/z/b/a; Qwen3-Next: fused in_proj_qkvz/ba
};
GatedDeltaNet read_gated_delta_net(const ModelConfig& text, uint64_t hidden, bool split_projections);
// The linear-attention mixer under `prefix` (e.g. "...layers.0.linear_attn").
void gated_delta_net(ModelTemplate& t, const std::string& prefix, const GatedDeltaNet& g);

// Full attention with q/k RMSNorm; `output_gate` doubles q_proj to carry a sigmoid gate per head (Qwen3-Next,
// Qwen3.5).
void qk_norm_attention(ModelTemplate& t, const std::string& prefix, const blocks::Attention& a,
                       bool output_gate);

// How a checkpoint stores the fused routed experts.
enum class ExpertStorage : uint8_t {
  PerExpert,        // experts.{e}.gate_proj/up_proj/down_proj (Qwen3-Next)
  Fused,            // as transformers holds them (Qwen3.5-MoE)
  FusedTransposed,  // fused, last two dimensions swapped (Qwen3-VL-MoE)
};

struct SparseMoe {
  uint64_t hidden = 0;
  uint64_t experts = 0;
  uint64_t inter = 0;         // per routed expert
  uint64_t shared_inter = 0;  // 0: no shared expert; else shared_expert MLP + shared_expert_gate
  ExpertStorage storage = ExpertStorage::PerExpert;
  bool experts_first = false;  // Qwen3-VL-MoE's block registers its experts before its gate
};
// gate (router), experts, and the optional shared expert under `prefix` (e.g. "...layers.0.mlp").
void sparse_moe(ModelTemplate& t, const std::string& prefix, const SparseMoe& m);

}  // namespace ma::families::qwen
