// What a gap report (seed 003 step 4) says about a layer type the simulator lacks, as data: the tensors of
// one instance, how each splits under tensor parallelism, expert parallelism and its all-to-all traffic
// where the layer routes to experts, and the figures a test of a new simulator class must reproduce
// (parameters, FLOPs per token). The math, references and strategies per kind are one table
// (gap_analysis.cpp); report/gap_report_markdown.h renders it.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/builder/simulator_config.h"

namespace ma {

// How tensor parallelism cuts a tensor: by output rows (column-parallel Linear, a vocabulary split), by input
// columns (row-parallel Linear, the all-reduce after it), a fused expert tensor [E, a, b] by its expert
// intermediate dim (a or b, whichever is not the model's width), or not at all (norms, biases, MLA's
// latent down-projections, which every rank needs whole).
enum class ShardRule : uint8_t { Rows, Columns, ExpertWidth, Replicated };
// "split dim 0 (column-parallel)", "split the input dim (row-parallel)", "split each expert's intermediate
// dim", "replicated"
std::string_view shard_rule_name(ShardRule r);

inline constexpr std::array<uint64_t, 3> kGapTensorParallel = {2, 4, 8};
inline constexpr uint64_t kGapContext = 4096;     // KV / state length the core FLOPs are given at
inline constexpr uint64_t kGapBatchTokens = 256;  // tokens per step for the all-to-all figure

struct GapTensor {
  std::string name;
  Shape shape;
  std::string dtype;  // the model's stored dtype ("bf16"), "unknown" when nothing tells
  ShardRule rule = ShardRule::Replicated;
  std::array<std::optional<Shape>, 3> shards;  // per kGapTensorParallel; nullopt: does not divide
};

struct KindReference {
  ComponentKind kind;
  std::string_view title;    // "Multi-head latent attention (MLA)"
  std::string_view math;     // the formula, in a few lines
  std::string_view pytorch;  // ops a reference implementation needs
  std::string_view vllm;     // implementation files
  std::string_view sglang;
  std::string_view parallelism;  // strategies, in words
};
const KindReference& kind_reference(ComponentKind k);

struct ExpertParallel {
  uint64_t experts = 0, top_k = 0, hidden = 0;
  std::vector<std::pair<uint64_t, uint64_t>> experts_per_device;  // (EP size, experts on each device)
  uint64_t bytes_per_element = 2;
  // Dispatch and combine together, per token and per kGapBatchTokens-token step: top_k copies of the hidden
  // state out and back (before deduplication by device).
  uint64_t all_to_all_bytes_per_token = 0;
};

// What tensor parallelism sends per token: the all-reduce after a row-parallel projection, or the all-gather
// of a vocabulary-split head's logits (bf16, 2 bytes an element).
struct TensorParallelTraffic {
  std::string collective;  // "all-reduce of the output", "all-gather of the logits"
  uint64_t elements_per_token = 0;
  uint64_t bytes_per_token = 0;
};

struct GapAnalysis {
  const LayerTypeEntry* entry = nullptr;
  std::string model_id, hf_model_id;
  std::string quantization;  // the checkpoint's declared method, "" for none
  std::vector<GapTensor> tensors;
  std::array<uint64_t, 3> parameters_per_device{};  // per kGapTensorParallel
  std::optional<TensorParallelTraffic> tp_traffic;  // unset when TP sends nothing the layer itself causes
  std::optional<ExpertParallel> expert_parallel;
  uint64_t linear_flops_per_token = 0;  // 2 x the weight elements one token multiplies (top-k experts only)
  // The mixer's own work at kGapContext (attention scores and values, a scan's state update); unset when the
  // kind has none.
  std::optional<uint64_t> core_flops_per_token;
  std::string core_formula;
};

GapAnalysis analyse_gap(const SimulatorConfig& cfg, const LayerTypeEntry& entry);

}  // namespace ma
