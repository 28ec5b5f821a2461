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
// The block and role of a tensor of a lone cross-attention layer outside any stack (Perceiver IO's
// encoder.cross_attention and its decoders' decoding_cross_attention: an attention block, a LayerNorm and
// an MLP); nullopt for any other tensor.
std::optional<std::pair<Block, std::string>> lone_cross_layer_block(const Parts& parts,
                                                                    std::string_view module, bool in_layer,
                                                                    const std::string& role);

}  // namespace ma::placement
