#include "analysis/moe_summary.h"

#include "model/tensor_placement.h"

namespace ma {
namespace {

// The shared-expert MLP's width, from its down projection [hidden, width] in the first MoE layer that has
// one (DeepSeek's n_shared_experts fuse into one MLP of n × moe_intermediate_size).
uint64_t shared_expert_width(const ModelTemplate& t) {
  for (const TemplateTensor& x : t.tensors) {
    if (x.kind != TensorKind::Parameter || x.shape.size() != 2 || !x.name.ends_with(".weight")) continue;
    const TensorPlacement p = place_tensor(x.name);
    if (p.block == "shared-expert" && p.role == "down") return x.shape[1];
  }
  return 0;
}

}  // namespace

std::optional<MoeSummary> summarize_moe(const ReportInputs& in) {
  MoeSummary m;
  for (size_t i = 0; i < in.inventory.layers.size(); ++i) {
    const std::string& ffn = in.inventory.layers[i].ffn;
    if (ffn == "moe") m.moe_layers.push_back(static_cast<uint32_t>(i));
    if (ffn == "dense") m.dense_layers.push_back(static_cast<uint32_t>(i));
  }
  const ParameterCounts& p = in.params;
  if (m.moe_layers.empty() && p.routed_experts == 0) return std::nullopt;
  m.total_parameters = p.total;
  m.active_parameters = p.active.value_or(p.total);
  m.routed_expert_parameters = p.routed_experts;
  if (!in.inventory.model) return m;  // bare weights: which layers route, but no expert counts
  const ArchSpec& a = in.inventory.model->arch;
  m.num_experts = a.num_experts;
  m.experts_per_token = a.experts_per_token;
  m.num_shared_experts = a.num_shared_experts;
  m.expert_intermediate_size = a.moe_intermediate_size;
  m.shared_expert_intermediate_size = shared_expert_width(*in.inventory.model);
  // Experts are equal-sized: every routed weight belongs to one expert of one MoE layer.
  const uint64_t experts_in_model = a.num_experts * m.moe_layers.size();
  if (experts_in_model && p.routed_experts % experts_in_model == 0)
    m.parameters_per_expert = p.routed_experts / experts_in_model;
  return m;
}

}  // namespace ma
