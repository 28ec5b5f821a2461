// SAM's image encoder (segment-anything's ImageEncoderViT; transformers' SamVisionEncoder), the high-
// resolution tower of DeepSeek-VL-7B: a ViT over 16-pixel patches of a 1,024-pixel image whose layers attend
// in 14 x 14 windows but for a few global ones, with relative-position tables per layer, and a neck of two
// convolutions down to output_channels.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// SamVisionConfig's fields, at its defaults (SAM ViT-B).
struct SamShape {
  uint64_t hidden = 768, heads = 12, layers = 12, channels = 3, image = 1024, patch = 16;
  uint64_t window = 14;  // 0: every layer global
  uint64_t mlp = 3072;
  uint64_t out = 256;  // the neck's output channels
  std::vector<int64_t> global = {2, 5, 8, 11};
  bool qkv_bias = true, relative = true, absolute = true;
};
// `fixed_mlp`: the config class declares mlp_dim with this default (GotOcr2VisionConfig: 3,072) and has no
// mlp_ratio; unset, SamVisionConfig's rule (mlp_dim, else hidden_size x mlp_ratio).
SamShape read_sam_shape(const ModelConfig& s, std::optional<uint64_t> fixed_mlp = std::nullopt);

// The encoder of `s` under `p`, with transformers' names, or with `original` segment-anything's
// (blocks.N.norm1, patch_embed.proj, neck.0 ... neck.3). Records it as a vision stack.
void sam_vision_encoder(const SamShape& s, const std::string& p, bool original, ModelTemplate& t);

// The neck under `p`: a bias-free 1 x 1 convolution from `in` to `out` channels, a LayerNorm, a bias-free
// 3 x 3 convolution and a LayerNorm (conv1, layer_norm1, conv2, layer_norm2; segment-anything's 0 ... 3).
void sam_neck(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, bool original);

}  // namespace ma::families
