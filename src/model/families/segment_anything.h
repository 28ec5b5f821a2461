// Builders of Meta's Segment Anything (group segment_anything, family_groups.h): SamModel (sam_model.cpp) and
// its image encoder alone (sam_vision_model.cpp). The encoder itself is sam_vision.h's, shared with
// GOT-OCR 2.0 and DeepSeek-VL.
#pragma once
#include <string>

#include "model/config.h"
#include "model/families/sam_vision.h"
#include "model/model_template.h"

namespace ma::families {

void build_sam(const ModelConfig& cfg, ModelTemplate& t);               // SamModel
void build_sam_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // SamVisionModel

// The record of a model whose dimensions are its SAM image encoder's, as class `cls` (sam_vision_model.cpp).
void sam_record(const SamShape& s, const std::string& cls, ArchitectureRecord& a);

}  // namespace ma::families
