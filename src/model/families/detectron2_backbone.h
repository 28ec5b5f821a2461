// detectron2's ResNet-FPN backbone (build_resnet_fpn_backbone) as LayoutLMv2's visual tower keeps it: the
// FPN module of a GeneralizedRCNN that LayoutLMv2VisualBackbone builds from a yacs config and then
// discards, except for its backbone.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// The FPN under `prefix` ("...visual.backbone."), from `args`, the flat dict of dotted detectron2 keys
// ("MODEL.RESNETS.DEPTH") a LayoutLMv2Config carries; keys it omits take detectron2's get_cfg() defaults.
// Returns the FPN's output width (MODEL.FPN.OUT_CHANNELS), the width of the p2 map LayoutLMv2 pools.
uint64_t detectron2_resnet_fpn(const ModelConfig& args, ModelTemplate& t, const std::string& prefix);

}  // namespace ma::families
