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

// What DINOv2 with registers changes in the body: learned register tokens, registered after the mask token,
// and its config class's default patch size.
struct Dinov2Variant {
  std::optional<uint64_t> register_tokens;  // none: no register_tokens parameter at all (DINOv2's own)
  uint64_t default_patch = 14;              // Dinov2Config's; Dinov2WithRegistersConfig's is 16
};
// Dinov2Model's modules (and Dinov2Backbone's, which registers the same three: embeddings, encoder,
// layernorm) under `prefix`, from a Dinov2Config `cfg`; the record's dimensions and an encoder stack
// `prefix`encoder.layer, its architecture `cls`. Returns the width. `image_size`, when given, replaces the
// config's (DepthProConfig sets each of its encoders' to its own patch_size).
uint64_t dinov2_body(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                     ModelTemplate& t, std::optional<uint64_t> image_size = std::nullopt,
                     const Dinov2Variant& variant = {});

}  // namespace ma::families
