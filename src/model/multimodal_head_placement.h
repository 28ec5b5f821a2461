// Placement rules of the heads and fusion modules multimodal and retrieval models keep at their root
// (tensor_placement.cpp asks them once the generic head rules have not placed a tensor).
#pragma once
#include "model/tensor_name_parts.h"
#include "model/tensor_placement.h"

namespace ma::placement {

// Places the tensor named by `parts` into `pl` (its block, its role, and no layer for the lists that are
// no stack) when one of those heads or fusion modules holds it; false, `pl` untouched, otherwise.
bool place_multimodal_head(const Parts& parts, TensorPlacement& pl);

}  // namespace ma::placement
