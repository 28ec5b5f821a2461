// Group clip_relatives: the model_types of clip_relatives.h's builders.
#include "model/families/clip_relatives.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kClipRelativesFamilies{
    FamilyBuilder{"clip_vision_model", build_clip_vision_model},
    FamilyBuilder{"clip_text_model", build_clip_text_model},
    FamilyBuilder{"siglip_vision_model", build_siglip_vision_model},
    FamilyBuilder{"siglip_text_model", build_siglip_text_model},
    FamilyBuilder{"siglip2_vision_model", build_siglip2_vision_model},
    FamilyBuilder{"chinese_clip", build_chinese_clip},
    FamilyBuilder{"chinese_clip_vision_model", build_chinese_clip_vision_model},
    FamilyBuilder{"owlvit", build_owlvit},
    FamilyBuilder{"owlv2", build_owlv2},
    FamilyBuilder{"clipseg", build_clipseg},
    FamilyBuilder{"altclip", build_altclip},
};

}  // namespace

std::span<const FamilyBuilder> clip_relatives() {
  return kClipRelativesFamilies;
}

}  // namespace ma::families
