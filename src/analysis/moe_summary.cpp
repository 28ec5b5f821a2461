#include "analysis/moe_summary.h"

namespace ma {

std::optional<MoeSummary> summarize_moe(const ArchitectureRecord& arch, const ParameterCounts& p) {
  MoeSummary m;
  const std::vector<LayerSpec>& layers = arch.layers();
  const FfnShape* first_moe = nullptr;
  for (size_t i = 0; i < layers.size(); ++i) {
    const FfnShape& f = layers[i].ffn;
    if (f.kind == Ffn::Moe) {
      m.moe_layers.push_back(static_cast<uint32_t>(i));
      if (!first_moe) first_moe = &f;
    }
    if (f.kind == Ffn::Dense) m.dense_layers.push_back(static_cast<uint32_t>(i));
  }
  if (m.moe_layers.empty() && p.routed_experts == 0) return std::nullopt;
  m.total_parameters = p.total;
  m.active_parameters = p.active.value_or(p.total);
  m.routed_expert_parameters = p.routed_experts;
  m.min_active_parameters = m.active_parameters;
  if (!first_moe || first_moe->experts == 0) return m;  // bare weights: which layers route, no expert counts
  m.zero_experts = first_moe->zero_experts;
  if (m.zero_experts) m.min_active_parameters = m.total_parameters - m.routed_expert_parameters;
  m.num_experts = first_moe->experts;
  m.experts_per_token = first_moe->top_k;
  m.num_shared_experts = first_moe->shared_experts;
  m.expert_intermediate_size = first_moe->expert_intermediate;
  m.shared_expert_intermediate_size = first_moe->shared_intermediate;
  // Experts are equal-sized: every routed weight belongs to one expert of one MoE layer.
  const uint64_t experts_in_model = m.num_experts * m.moe_layers.size();
  if (experts_in_model && p.routed_experts % experts_in_model == 0)
    m.parameters_per_expert = p.routed_experts / experts_in_model;
  return m;
}

}  // namespace ma
