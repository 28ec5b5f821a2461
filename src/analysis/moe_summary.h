// Mixture of experts: experts, top-k, shared experts, expert size, which layers, total vs active parameters.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/parameter_counts.h"
#include "model/architecture.h"

namespace ma {

struct MoeSummary {
  uint64_t num_experts = 0;        // routed experts per MoE layer; 0: unknown (no config)
  uint64_t experts_per_token = 0;  // top-k
  uint64_t num_shared_experts = 0;
  uint64_t expert_intermediate_size = 0;
  uint64_t shared_expert_intermediate_size =
      0;                               // width of the shared-expert MLP (all shared experts); 0: none
  uint64_t parameters_per_expert = 0;  // one routed expert of one layer; 0: unknown
  std::vector<uint32_t> moe_layers;
  std::vector<uint32_t> dense_layers;  // layers with a dense MLP (Mamba or attention-only layers are neither)
  uint64_t total_parameters = 0;
  uint64_t active_parameters = 0;  // per token: everything but the routed experts not chosen
  // Weightless experts the router also picks (LongCat-Flash's zero-computation experts); with them a token
  // runs as few as no routed expert: min_active_parameters = total - routed, else active_parameters.
  uint64_t zero_experts = 0;
  uint64_t min_active_parameters = 0;
  uint64_t routed_expert_parameters = 0;  // all routed experts of all layers
};

// nullopt for dense models.
std::optional<MoeSummary> summarize_moe(const ArchitectureRecord& arch, const ParameterCounts& params);

}  // namespace ma
