// Group nested_composites: the model_types of nested_composites.h's builders.
#include "model/families/nested_composites.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kNestedCompositeFamilies{
    FamilyBuilder{"vision-text-dual-encoder", build_vision_text_dual_encoder},
    FamilyBuilder{"rag", build_rag},
    FamilyBuilder{"udop", build_udop},
};

}  // namespace

std::span<const FamilyBuilder> nested_composites() {
  return kNestedCompositeFamilies;
}

}  // namespace ma::families
