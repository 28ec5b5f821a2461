// The segment_anything group (family_groups.h): the builders of segment_anything.h and sam2.h by model_type.
#include "model/families/segment_anything.h"

#include <array>

#include "model/families/family_groups.h"
#include "model/families/sam2.h"

namespace ma::families {
namespace {

constexpr std::array kSegmentAnythingFamilies{
    FamilyBuilder{"sam", build_sam},
    FamilyBuilder{"sam_vision_model", build_sam_vision_model},
    FamilyBuilder{"sam_hq", build_sam_hq},
    FamilyBuilder{"sam_hq_vision_model", build_sam_hq_vision_model},
    FamilyBuilder{"sam2", build_sam2},
    FamilyBuilder{"sam2_vision_model", build_sam2_vision_model},
    FamilyBuilder{"sam2_hiera_det_model", build_sam2_hiera_det_model},
    FamilyBuilder{"sam2_video", build_sam2_video},
    FamilyBuilder{"edgetam", build_edgetam},
    FamilyBuilder{"edgetam_vision_model", build_edgetam_vision_model},
    FamilyBuilder{"edgetam_video", build_edgetam_video},
};

}  // namespace

std::span<const FamilyBuilder> segment_anything() {
  return kSegmentAnythingFamilies;
}

}  // namespace ma::families
