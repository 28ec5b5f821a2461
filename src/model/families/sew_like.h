// What SEW (sew.cpp) changes in wav2vec 2.0's body, which SEW-D (sew_d.cpp) keeps: thirteen convolutions by
// default, a LayerNorm over the features at the model's root and a projection only when the widths differ, a
// post-norm encoder whose positional convolution squeezes the frames, and the upsampling projection after
// the layers.
#pragma once
#include "model/config.h"
#include "model/families/wav2vec2_encoder.h"
#include "model/model_template.h"

namespace ma::families {

// Builds the class config.json names from `f` (its prefix, base, tasks and, for SEW-D, its transformer)
// with SEW's pieces filled in.
void build_sew_like(const ModelConfig& cfg, ModelTemplate& t, Wav2Vec2Flavour f);

}  // namespace ma::families
