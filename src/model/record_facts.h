// The record's descriptive facts (norm, activation, positions, rotary embedding, biases), derived where the
// builder left them unset: from what the template's tensors show (a norm with a bias is a LayerNorm, a
// position table means learned positions, a gate projection, or an up projection twice as wide as the
// down projection takes, means a gated MLP) and from the config keys
// every family spells alike (rms_norm_eps, hidden_act, rope_parameters / rope_scaling, ...).
#pragma once
#include <string_view>
#include <vector>

#include "core/shape.h"
#include "model/architecture.h"
#include "model/config.h"
#include "model/tensor_placement.h"

namespace ma {

// One parameter as the derivation sees it: its in-memory name, placement and shape.
struct NamedPlacement {
  std::string_view name;
  TensorPlacement placement;
  const Shape* shape = nullptr;  // none: the derivation reads names only
};

// With a config (the template's parameters as `tensors`). A declared dtype that names no dtype, and a rotary
// base that is no number, fail (exit 3: transformers cannot load or build such a model); a descriptive value
// of the wrong type or out of range (an eps below 0) is left out with a warning (ModelConfig::warnings).
void derive_facts(const ModelConfig& cfg, const std::vector<NamedPlacement>& tensors, ArchitectureRecord& a);
// Bare weights: the stored tensors only.
void derive_facts(const std::vector<NamedPlacement>& tensors, ArchitectureRecord& a);

}  // namespace ma
