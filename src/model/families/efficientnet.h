// EfficientNet's stem and MBConv blocks, shared by EfficientNet (efficientnet.cpp) and ALIGN's image tower
// (AlignVisionModel copies EfficientNet's embeddings and blocks, without the top conv and batch norm).
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

struct EfficientNetBlocks {
  uint64_t width = 0;   // the last block's output channels
  uint64_t blocks = 0;  // MBConv blocks in all, after depth scaling
};

// Reads EfficientNetConfig's (or AlignVisionConfig's: the same fields and defaults, EfficientNet-B7's) shape
// and adds `prefix`embeddings.{convolution,batchnorm} and `prefix`encoder.blocks.N in registration order.
// Refuses lists shorter than in_channels and scaling coefficients out of range, naming the field.
EfficientNetBlocks efficientnet_stem_and_blocks(const ModelConfig& cfg, ModelTemplate& t,
                                                const std::string& prefix);

}  // namespace ma::families
