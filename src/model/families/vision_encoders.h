// The vision encoders of vision_encoders.cpp as parts of other models: DINOv2's body is also the
// Dinov2Backbone that load_backbone builds for Depth Anything (and its prompt variant) and the three
// encoders of Depth Pro.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// Dinov2Model's modules (and Dinov2Backbone's, which registers the same three: embeddings, encoder,
// layernorm) under `prefix`, from a Dinov2Config `cfg`; the record's dimensions and an encoder stack
// `prefix`encoder.layer, its architecture `cls`. Returns the width. `image_size`, when given, replaces the
// config's (DepthProConfig sets each of its encoders' to its own patch_size).
uint64_t dinov2_body(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                     ModelTemplate& t, std::optional<uint64_t> image_size = std::nullopt);

}  // namespace ma::families
