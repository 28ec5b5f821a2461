// Placement rules of the learned inputs a model feeds its layers beside the tokens it is given: a universal
// segmenter's or detector's learned queries and task tokens, and Perceiver IO's latent array and the input
// preprocessor that embeds pixels for it (tensor_placement.cpp asks them after the embedding-name rules).
#pragma once
#include <string_view>

#include "model/tensor_name_parts.h"
#include "model/tensor_placement.h"

namespace ma::placement {

// Places the tensor named by `parts` (its module `module`) into `pl` (its block, its role, and no layer for
// the MLPs whose layers.N are no stack) when it is one of those inputs; false, `pl` untouched, otherwise.
bool place_learned_input(const Parts& parts, std::string_view module, TensorPlacement& pl);

}  // namespace ma::placement
