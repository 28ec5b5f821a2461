// The depth group (family_groups.h): the builders of depth.h by model_type.
#include "model/families/depth.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kDepthFamilies{
    FamilyBuilder{"depth_anything", build_depth_anything},
    FamilyBuilder{"prompt_depth_anything", build_prompt_depth_anything},
    FamilyBuilder{"zoedepth", build_zoedepth},
    FamilyBuilder{"depth_pro", build_depth_pro},
};

}  // namespace

std::span<const FamilyBuilder> depth() {
  return kDepthFamilies;
}

}  // namespace ma::families
