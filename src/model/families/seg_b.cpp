// Group seg_b: the model_types of seg_b.h's builders.
#include "model/families/seg_b.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSegBFamilies{
    FamilyBuilder{"mask2former", build_mask2former},
    FamilyBuilder{"oneformer", build_oneformer},
    FamilyBuilder{"eomt", build_eomt},
};

}  // namespace

std::span<const FamilyBuilder> seg_b() {
  return kSegBFamilies;
}

}  // namespace ma::families
