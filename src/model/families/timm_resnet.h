// timm's torchvision-style ResNets (timm/models/resnet.py: resnet18 ... resnet152), in timm's own names
// (conv1, bn1, layer1.0.conv1 ...): DETR's timm backbone (detr_backbone.cpp) and timm_wrapper's classifier
// (timm_wrapper.cpp) build their bodies here.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_template.h"

namespace ma::families {

struct TimmResnet {
  std::string_view name;
  bool bottleneck;  // Bottleneck blocks (expansion 4) above 34 layers, BasicBlock (expansion 1) below
  std::array<uint64_t, 4> depths;
};

// The row timm registers under `architecture` (a pretrained tag such as ".a1_in1k" already removed); null
// for any other name.
const TimmResnet* find_timm_resnet(std::string_view architecture);

// The stem (a 7 x 7 convolution of 64 channels and its batch norm) and the first `stages` of layer1..layer4
// under `prefix`, each BatchNorm2d frozen (DETR's) or trainable; returns the channels of feature 0 (the
// stem's) and of each stage built.
std::vector<uint64_t> timm_resnet_body(ModelTemplate& t, const std::string& prefix, const TimmResnet& r,
                                       uint64_t in_chans, uint64_t stages, bool frozen);

}  // namespace ma::families
