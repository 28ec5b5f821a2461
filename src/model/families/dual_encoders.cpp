// Group dual_encoders: the model_types of dual_encoders.h's builders.
#include "model/families/dual_encoders.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kDualEncoderFamilies{
    FamilyBuilder{"align", build_align},
    FamilyBuilder{"align_text_model", build_align_text_model},
    FamilyBuilder{"align_vision_model", build_align_vision_model},
    FamilyBuilder{"groupvit", build_groupvit},
    FamilyBuilder{"groupvit_text_model", build_groupvit_text_model},
    FamilyBuilder{"groupvit_vision_model", build_groupvit_vision_model},
    FamilyBuilder{"xclip", build_xclip},
    FamilyBuilder{"xclip_text_model", build_xclip_text_model},
    FamilyBuilder{"xclip_vision_model", build_xclip_vision_model},
};

}  // namespace

std::span<const FamilyBuilder> dual_encoders() {
  return kDualEncoderFamilies;
}

}  // namespace ma::families
