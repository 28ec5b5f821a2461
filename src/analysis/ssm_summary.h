// The state-space, linear-attention, short-convolution and RG-LRU mixers of Mamba, Mamba-2, gated-DeltaNet,
// LFM2, RecurrentGemma and the hybrids built from them: each mixer kind's shape (d_state, d_inner and expand,
// heads x head dim, groups, conv kernel, dt rank, chunk size) and the layers that use it. What the state
// costs in memory is the memory section's.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "model/architecture.h"

namespace ma {

struct SsmMixer {
  Mixer mixer = Mixer::Mamba;  // Mamba, Mamba2, LinearAttention, ShortConv or RgLru
  StateShape shape;            // of its first layer (layers of one kind share it in every family we build)
  double expand = 0;  // d_inner / hidden size (Mamba-1's expand; a Mamba-2 sized by heads x head_dim need not
                      // be a round multiple); 0 where either is unknown
  std::vector<uint32_t> layers;
};

struct SsmSummary {
  std::vector<SsmMixer> mixers;  // in the order the kinds first appear
  std::vector<uint32_t> attention_layers;
  // Layers whose state-space mixer runs beside their attention on the same input, the outputs summed
  // (Falcon-H1: every layer); empty for stacked hybrids, whose layers hold one mixer each.
  std::vector<uint32_t> parallel_layers;
  // Layers that run attention and then their state-space mixer on its output (Zamba2's hybrid layers).
  std::vector<uint32_t> sequential_layers;
  uint64_t num_layers = 0;
};

// nullopt for a model with no state-space or linear-attention layer.
std::optional<SsmSummary> summarize_ssm(const ArchitectureRecord& arch);

}  // namespace ma
