// Placement rules of the sequence mixers that are not softmax attention: SEANet's convolution stacks,
// short convolutions, RecurrentGemma's RG-LRU, xLSTM's mLSTM, RWKV's mixing, Mamba and linear attention.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/tensor_name_parts.h"
#include "model/tensor_placement.h"

namespace ma::placement {

// The block and role of a tensor named by `parts` (`inner`: its parts after the layer index at `layer_pos`;
// `module`: the module holding it; `role`: its module's generic role) when one of those mixers holds it;
// nullopt otherwise.
std::optional<std::pair<Block, std::string>> sequence_mixer_block(const Parts& parts, const Parts& inner,
                                                                  std::string_view module, size_t layer_pos,
                                                                  bool in_layer, const std::string& role);

}  // namespace ma::placement
