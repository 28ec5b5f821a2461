#include "analysis/parameter_counts.h"

#include "core/error.h"

namespace ma {

ParameterCounts count_parameters(const Inventory& inv) {
  ParameterCounts c;
  if (inv.model) {
    c.from_template = true;
    for (const TemplateTensor& t : inv.model->tensors) {
      if (t.kind != TensorKind::Parameter || !t.tied_to.empty()) continue;
      uint64_t n = numel(t.shape);
      c.total += n;
      if (t.embedding) c.embedding += n;
      if (t.routed_expert) c.routed_experts += n;
    }
    const ArchitectureRecord& a = inv.model->arch;
    if (c.routed_experts) {
      if (a.num_experts == 0 || a.experts_per_token == 0 || a.experts_per_token > a.num_experts)
        throw Error(ErrorKind::Internal, "", a.model_type,
                    "routed experts without a valid experts/top-k count");
      // Experts are equal-sized, so the active share of the routed weights is exactly top_k / experts.
      c.active = c.total - c.routed_experts + c.routed_experts / a.num_experts * a.experts_per_token;
    }
  } else {
    for (const InventoryTensor& t : inv.tensors) {
      if (t.kind != TensorKind::Parameter || !t.stored) continue;
      c.total += t.parameters;
      if (t.placement.block == Block::Embedding) c.embedding += t.parameters;
    }
  }
  c.non_embedding = c.total - c.embedding;
  return c;
}

}  // namespace ma
