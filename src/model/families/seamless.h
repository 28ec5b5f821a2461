// Group seamless: Meta's SeamlessM4T (seamless_m4t.cpp) and SeamlessM4T v2 (seamless_m4t_v2.cpp), each the
// whole SeamlessM4TModel / SeamlessM4Tv2Model: speech and text encoders, text decoder, text-to-unit model and
// code HiFi-GAN vocoder. seamless.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_seamless_m4t(const ModelConfig& cfg, ModelTemplate& t);     // hf-seamless-m4t-medium / -large
void build_seamless_m4t_v2(const ModelConfig& cfg, ModelTemplate& t);  // seamless-m4t-v2-large

}  // namespace ma::families
