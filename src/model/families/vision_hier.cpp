// Group vision_hier: the model_types of vision_hier.h's builders (hierarchical vision encoders: SegFormer,
// PVTv2, MobileViT, MobileViTV2, PoolFormer).
#include "model/families/vision_hier.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVisionHierFamilies{
    FamilyBuilder{"segformer", build_segformer},   FamilyBuilder{"pvt_v2", build_pvt_v2},
    FamilyBuilder{"mobilevit", build_mobilevit},   FamilyBuilder{"mobilevitv2", build_mobilevitv2},
    FamilyBuilder{"poolformer", build_poolformer},
};

}  // namespace

std::span<const FamilyBuilder> vision_hier() {
  return kVisionHierFamilies;
}

}  // namespace ma::families
