// The vision-language models of group ocr_and_ovis (got_ocr2.cpp, ovis2.cpp, kosmos2_5.cpp): each file builds
// one model_type; ocr_and_ovis.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_got_ocr2(const ModelConfig& cfg, ModelTemplate& t);   // GOT-OCR 2.0 (SAM ViT-Det + Qwen2)
void build_ovis2(const ModelConfig& cfg, ModelTemplate& t);      // Ovis2 (AIMv2 visual tokenizer + Qwen2)
void build_kosmos2_5(const ModelConfig& cfg, ModelTemplate& t);  // Kosmos-2.5 (Pix2Struct encoder + decoder)

}  // namespace ma::families
