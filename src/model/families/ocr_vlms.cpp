// Group ocr_vlms: the model_types of ocr_vlms.h's builders.
#include "model/families/ocr_vlms.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kOcrVlmFamilies{
    FamilyBuilder{"swin", build_swin},
    FamilyBuilder{"donut-swin", build_donut_swin},
    FamilyBuilder{"swinv2", build_swinv2},
    FamilyBuilder{"pix2struct", build_pix2struct},
    FamilyBuilder{"pix2struct_vision_model", build_pix2struct_vision},
    FamilyBuilder{"pix2struct_text_model", build_pix2struct_text},
};

}  // namespace

std::span<const FamilyBuilder> ocr_vlms() {
  return kOcrVlmFamilies;
}

}  // namespace ma::families
