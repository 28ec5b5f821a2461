// Group seamless: the model_types of seamless.h's builders.
#include "model/families/seamless.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSeamlessFamilies{
    FamilyBuilder{"seamless_m4t", build_seamless_m4t},
    FamilyBuilder{"seamless_m4t_v2", build_seamless_m4t_v2},
};

}  // namespace

std::span<const FamilyBuilder> seamless() {
  return kSeamlessFamilies;
}

}  // namespace ma::families
