// The segment_anything group (family_groups.h): the builders of segment_anything.h by model_type.
#include "model/families/segment_anything.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSegmentAnythingFamilies{
    FamilyBuilder{"sam", build_sam},
    FamilyBuilder{"sam_vision_model", build_sam_vision_model},
};

}  // namespace

std::span<const FamilyBuilder> segment_anything() {
  return kSegmentAnythingFamilies;
}

}  // namespace ma::families
