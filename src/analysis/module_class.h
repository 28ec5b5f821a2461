// The module classes the weight statistics group tensors by (embedding, q_proj, k_proj, v_proj, o_proj, mlp,
// moe, norm, output, ...), derived from the tensor's block and role so that every family's naming maps to
// the same few classes. One name table (module_class.cpp).
#pragma once
#include <cstdint>
#include <string_view>

#include "model/tensor_placement.h"

namespace ma {

// Attention: other attention projections (MLA's low-rank ones, indexers).
enum class ModuleClass : uint8_t {
  Embedding,
  QProj,
  KProj,
  VProj,
  OProj,
  QkvProj,
  Attention,
  Mlp,
  Moe,
  Norm,
  Output,
  Mamba,
  LinearAttention,
  Vision,
  Other
};
// embedding, q_proj, k_proj, v_proj, o_proj, qkv_proj, attention, mlp, moe, norm, output, mamba,
// linear_attention, vision, other
std::string_view module_class_name(ModuleClass c);

ModuleClass module_class(Block block, std::string_view role);

}  // namespace ma
