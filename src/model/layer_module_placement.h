// Placement rules of the attention and feed-forward modules inside a layer, in each family's spelling
// (tensor_placement.cpp asks them once a tensor's layer, module and generic role are known).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/tensor_name_parts.h"
#include "model/tensor_placement.h"

namespace ma::placement {

// The block and role of a tensor (`inner`: its name's parts after the layer index; `module`: the
// module holding it; `role`: its module's generic role) when a layer's attention or feed-forward network
// holds it; nullopt otherwise.
std::optional<std::pair<Block, std::string>> layer_module_block(const Parts& inner, std::string_view module,
                                                                bool in_layer, std::string role);

}  // namespace ma::placement
