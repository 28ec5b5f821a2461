// The pieces of wav2vec 2.0's speech encoder that transformers copies into other models ("Copied from
// transformers.models.wav2vec2..."): the convolutional feature encoder over the raw waveform and the
// weight-normed convolution that adds relative positions. wav2vec 2.0's relatives (wav2vec2_encoder.h) and
// SpeechT5's speech encoder prenet (speecht5_model.cpp) build them under their own module names.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// The feature encoder's convolutions under `conv_layers` ("feature_extractor.conv_layers"), read from
// conv_dim / conv_kernel / conv_stride (one entry per convolution; wav2vec2-base's seven by default),
// feat_extract_norm ("group": a GroupNorm after the first convolution only; "layer": a LayerNorm after each)
// and conv_bias. Returns the last convolution's width, the features the projection reads. every_conv_normed:
// data2vec-audio's encoder, a LayerNorm after each convolution whatever feat_extract_norm says.
// conv_dim / conv_kernel / conv_stride when config.json omits them: wav2vec2-base's seven convolutions, or a
// config class's own (SEW's thirteen).
struct ConvStackDefaults {
  std::vector<uint64_t> dims, kernels, strides;
};
const ConvStackDefaults& wav2vec2_conv_defaults();
uint64_t wav2vec2_feature_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& conv_layers,
                                  bool every_conv_normed = false,
                                  const ConvStackDefaults& defaults = wav2vec2_conv_defaults());

// The positional convolution's kernel (num_conv_pos_embeddings, 128) and groups
// (num_conv_pos_embedding_groups, 16), which must divide `hidden`.
struct ConvPositionDims {
  uint64_t kernel = 0, groups = 0;
};
ConvPositionDims conv_position_dims(const ModelConfig& cfg, uint64_t hidden);

// The weight-normed positional convolution under `conv` ("encoder.pos_conv_embed.conv"): torch's
// parametrizations.weight_norm over dim 2, so its magnitude g is [1, 1, kernel]. Its own bias comes before
// the parametrization (named_parameters lists a module's own first); the Hub's checkpoints keep torch's old
// weight_g / weight_v names, which transformers renames on load.
void weight_normed_position_conv(ModelTemplate& t, const std::string& conv, uint64_t hidden,
                                 const ConvPositionDims& d);

}  // namespace ma::families
