// Builders of the classic vision-language models grouped in vlm_classics() (family_groups.h): GIT, IDEFICS
// and Kosmos-2, each in its own file (Pix2Struct: ocr_vlms.h).
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_git(const ModelConfig& cfg, ModelTemplate& t);
void build_git_vision_model(const ModelConfig& cfg, ModelTemplate& t);
void build_idefics(const ModelConfig& cfg, ModelTemplate& t);
void build_kosmos2(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
