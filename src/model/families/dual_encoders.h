// Group dual_encoders: image-text (and video-text) dual encoders whose towers are not CLIP's pair alone:
// ALIGN (EfficientNet + BERT), GroupViT (grouping vision transformer + CLIP's text transformer), X-CLIP
// (CLIP's towers over video frames with cross-frame tokens and a prompt generator). Each file builds its
// model_types; dual_encoders.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_align(const ModelConfig& cfg, ModelTemplate& t);                // align.cpp: AlignModel
void build_align_text_model(const ModelConfig& cfg, ModelTemplate& t);     // align.cpp: AlignTextModel
void build_align_vision_model(const ModelConfig& cfg, ModelTemplate& t);   // align.cpp: AlignVisionModel
void build_groupvit(const ModelConfig& cfg, ModelTemplate& t);             // groupvit.cpp: GroupViTModel
void build_groupvit_text_model(const ModelConfig& cfg, ModelTemplate& t);  // groupvit.cpp: GroupViTTextModel
void build_groupvit_vision_model(const ModelConfig& cfg,
                                 ModelTemplate& t);                       // groupvit.cpp: GroupViTVisionModel
void build_xclip(const ModelConfig& cfg, ModelTemplate& t);               // xclip.cpp: XCLIPModel
void build_xclip_text_model(const ModelConfig& cfg, ModelTemplate& t);    // xclip.cpp: XCLIPTextModel
void build_xclip_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // xclip.cpp: XCLIPVisionModel

}  // namespace ma::families
