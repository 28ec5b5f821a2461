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

// The MLP width of a Dinov2Layer of width `hidden` (mlp_ratio, use_swiglu_ffn as Dinov2Config spells them):
// int(hidden * mlp_ratio), or with the SwiGLU MLP two thirds of it rounded up to a multiple of 8.
uint64_t dinov2_mlp_width(const ModelConfig& cfg, uint64_t hidden);
// How a Dinov2Layer's attention is named: DINOv2's (attention.attention.{query,key,value} and
// attention.output.dense, q/k/v biased when qkv_bias) or SigLIP's (attention.{k,v,q,out}_proj, all biased:
// EoMT's EomtAttention).
enum class Dinov2AttentionNames { Dinov2, Siglip };
// One Dinov2Layer under `p` ("...layer.N."): norm1, the attention, layer_scale1, norm2, the MLP (fc1 / fc2,
// or the SwiGLU MLP's fused weights_in / weights_out) `ffn` wide, layer_scale2.
void dinov2_layer(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t ffn, bool swiglu,
                  Dinov2AttentionNames names, bool qkv_bias = true);

}  // namespace ma::families
