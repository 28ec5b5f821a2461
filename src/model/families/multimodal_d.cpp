// Group multimodal_d: the model_types of multimodal_d.h's builders.
#include "model/families/multimodal_d.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kMultimodalDFamilies{
    FamilyBuilder{"flava", build_flava},
    FamilyBuilder{"bridgetower", build_bridgetower},
};

}  // namespace

std::span<const FamilyBuilder> multimodal_d() {
  return kMultimodalDFamilies;
}

}  // namespace ma::families
