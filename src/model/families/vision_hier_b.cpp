// Group vision_hier_b: the model_types of vision_hier_b.h's builders (LeViT, CvT, FocalNet, PVT, GLPN).
#include "model/families/vision_hier_b.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVisionHierBFamilies{
    FamilyBuilder{"levit", build_levit},       FamilyBuilder{"cvt", build_cvt},
    FamilyBuilder{"focalnet", build_focalnet}, FamilyBuilder{"pvt", build_pvt},
    FamilyBuilder{"glpn", build_glpn},
};

}  // namespace

std::span<const FamilyBuilder> vision_hier_b() {
  return kVisionHierBFamilies;
}

}  // namespace ma::families
