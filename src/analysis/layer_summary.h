// Counts of decoder layers by type, with their indices: "23 × mamba2 (0,2,4,...)" for hybrid models.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/architecture.h"

namespace ma {

struct LayerGroup {
  std::string type;  // LayerSpec::type(), or a mixer / ffn kind in the per-part tallies
  std::vector<uint32_t> indices;
};

struct LayerSummary {
  std::vector<LayerGroup> by_type;   // whole-layer types, in order of first appearance
  std::vector<LayerGroup> by_mixer;  // attention (and its kind: "attention (gqa)"), mamba2, ...
  std::vector<LayerGroup> by_ffn;    // dense, moe
};

LayerSummary summarize_layers(const std::vector<LayerSpec>& layers);

}  // namespace ma
