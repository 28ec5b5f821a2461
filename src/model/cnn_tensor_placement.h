// Placement rules of convolutional vision networks (ResNet, BiT, RegNet, EfficientNet, ConvNeXt,
// MobileNetV2, MobileViT), of the staged encoders' per-stage patch embeddings (SegFormer, PVT, PoolFormer)
// and of the keypoint networks (SuperPoint and the matchers over it).
#pragma once
#include <optional>
#include <string_view>
#include <utility>

#include "model/tensor_name_parts.h"
#include "model/tensor_placement.h"

namespace ma::placement {

// The block and role of a tensor named by `parts` (`inner`: its parts after the layer index; `module`: the
// module holding it) when it is one of those networks' convolutions, norms or gates; nullopt otherwise.
std::optional<std::pair<Block, std::string_view>> conv_network_block(const Parts& parts, const Parts& inner,
                                                                     std::string_view module, bool in_layer);

// The block and role of a keypoint network's tensor (SuperPoint's, SuperGlue's, LightGlue's), decided before
// any layer index is read; nullopt for any other tensor.
std::optional<std::pair<Block, std::string_view>> keypoint_network_block(const Parts& parts);

}  // namespace ma::placement
