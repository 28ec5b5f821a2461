// BEiT (modeling_beit.py) as a part of other models: the BeitBackbone load_backbone builds for ZoeDepth.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// BeitBackbone's modules under `prefix` (embeddings, encoder; no final LayerNorm) from a BeitConfig `cfg`,
// the record's dimensions and an encoder stack `prefix`encoder.layer of architecture `cls`. Returns the
// width.
uint64_t beit_backbone(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                       ModelTemplate& t);

}  // namespace ma::families
