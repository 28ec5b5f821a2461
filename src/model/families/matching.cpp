// The matching group (family_groups.h): the builders of matching.h by model_type.
#include "model/families/matching.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kMatchingFamilies{
    FamilyBuilder{"superpoint", build_superpoint},
    FamilyBuilder{"superglue", build_superglue},
    FamilyBuilder{"lightglue", build_lightglue},
};

}  // namespace

std::span<const FamilyBuilder> matching() {
  return kMatchingFamilies;
}

}  // namespace ma::families
