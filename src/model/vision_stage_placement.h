// Placement rules of vision networks' stage modules that no other rule claimed (LeViT, CvT, FocalNet, GLPN,
// V-JEPA 2, HGNetV2, TextNet); tensor_placement.cpp asks them last, before calling a tensor "other".
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/tensor_name_parts.h"
#include "model/tensor_placement.h"

namespace ma::placement {

// The block and role of a tensor named by `parts` (`inner`: its parts after the layer index; `module`: the
// module holding it; `layer_own`: a parameter of the layer itself; `role`: its module's generic role) when
// one of those stage modules holds it; nullopt otherwise.
std::optional<std::pair<Block, std::string>> vision_stage_block(const Parts& parts, const Parts& inner,
                                                                std::string_view module, bool in_layer,
                                                                bool layer_own, const std::string& role);

}  // namespace ma::placement
