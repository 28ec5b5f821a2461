// Parameter totals of an inventory: the model as transformers builds it (tied weights once, buffers never),
// embedding vs non-embedding as transformers' num_parameters(exclude_embeddings=True) splits them, and the
// parameters active per token of a mixture-of-experts model.
#pragma once
#include <cstdint>
#include <optional>

#include "model/inventory.h"

namespace ma {

struct ParameterCounts {
  uint64_t total = 0;      // num_parameters
  uint64_t embedding = 0;  // nn.Embedding weights (token, position, token-type)
  uint64_t non_embedding = 0;
  uint64_t routed_experts = 0;     // all routed-expert weights
  std::optional<uint64_t> active;  // MoE: total - routed + routed * top_k / experts
  bool from_template = false;      // false: counted from stored tensors (no config)
};

ParameterCounts count_parameters(const Inventory& inv);

}  // namespace ma
