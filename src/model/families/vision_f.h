// The models of group vision_f (seggpt.cpp, tvp.cpp, efficientloftr.cpp): each file builds one model family;
// vision_f.cpp lists their model_types.
#pragma once

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_seggpt(const ModelConfig& cfg, ModelTemplate& t);  // SegGptModel / SegGptForImageSegmentation
void build_tvp(const ModelConfig& cfg, ModelTemplate& t);     // TvpModel / TvpForVideoGrounding
void build_efficientloftr(const ModelConfig& cfg,
                          ModelTemplate& t);  // EfficientLoFTRModel / EfficientLoFTRForKeypointMatching

}  // namespace ma::families
