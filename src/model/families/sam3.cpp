// The segment_anything_3 group (family_groups.h): the builders of sam3.h by model_type.
#include "model/families/sam3.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSegmentAnything3Families{
    FamilyBuilder{"sam3", build_sam3},
    FamilyBuilder{"sam3_vision_model", build_sam3_vision_model},
    FamilyBuilder{"sam3_vit_model", build_sam3_vit_model},
    FamilyBuilder{"sam3_tracker", build_sam3_tracker},
    FamilyBuilder{"sam3_tracker_video", build_sam3_tracker_video},
    FamilyBuilder{"sam3_video", build_sam3_video},
    FamilyBuilder{"sam3_lite_text", build_sam3_lite_text},
    FamilyBuilder{"sam3_lite_text_text_model", build_sam3_lite_text_text_model},
    FamilyBuilder{"sam3_1_video", build_sam3_1_video},
};

}  // namespace

std::span<const FamilyBuilder> segment_anything_3() {
  return kSegmentAnything3Families;
}

}  // namespace ma::families
