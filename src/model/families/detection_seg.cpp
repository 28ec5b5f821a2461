// The detection / pose / matting group's table: ViTDet, the ViTPose backbone, ViTPose, ViTMatte, MGP-STR.
#include "model/families/detection_seg.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kDetectionSegFamilies{
    FamilyBuilder{"vitdet", build_vitdet},   FamilyBuilder{"vitpose_backbone", build_vitpose_backbone},
    FamilyBuilder{"vitpose", build_vitpose}, FamilyBuilder{"vitmatte", build_vitmatte},
    FamilyBuilder{"mgp-str", build_mgp_str},
};

}  // namespace

std::span<const FamilyBuilder> detection_seg() {
  return kDetectionSegFamilies;
}

}  // namespace ma::families
