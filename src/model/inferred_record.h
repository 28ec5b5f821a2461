// The record of a checkpoint without config.json: what the tensor names alone tell — the main stack (the one
// holding the most layer-indexed tensors) and each layer's mixer and feed-forward kind. Dimensions stay 0
// (unknown): without a config nothing says how heads divide a projection.
#pragma once
#include <vector>

#include "model/architecture.h"
#include "model/config.h"
#include "model/inventory.h"

namespace ma {

// Beyond this a layer index is not a layer count anyone trains: the names are not a layer stack. The cap a
// config's depth has: a 576-byte GGUF naming blk.99999 made a 100,000-layer stack that `serve` then spent
// minutes timing.
inline constexpr uint32_t kMaxInferredLayers = ModelConfig::kMaxLayers;

ArchitectureRecord infer_record(const std::vector<InventoryTensor>& tensors);

}  // namespace ma
