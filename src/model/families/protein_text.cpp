// Group protein_text: the model_types of protein_text.h's builders.
#include "model/families/protein_text.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kProteinTextFamilies{
    FamilyBuilder{"evolla", build_evolla},
    // Evolla-10B-hf's config.json spells the model_type as EvollaConfig.model_type does.
    FamilyBuilder{"EvollaModel", build_evolla},
};

}  // namespace

std::span<const FamilyBuilder> protein_text() {
  return kProteinTextFamilies;
}

}  // namespace ma::families
