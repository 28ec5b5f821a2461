// Group multimodal_b: the model_types of multimodal_b.h's builders.
#include "model/families/multimodal_b.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kMultimodalBFamilies{
    FamilyBuilder{"colpali", build_colpali},
    FamilyBuilder{"colqwen2", build_colqwen2},
    FamilyBuilder{"blip_2_qformer", build_blip_2_qformer},
    FamilyBuilder{"vilt", build_vilt},
    FamilyBuilder{"visual_bert", build_visual_bert},
    FamilyBuilder{"bros", build_bros},
};

}  // namespace

std::span<const FamilyBuilder> multimodal_b() {
  return kMultimodalBFamilies;
}

}  // namespace ma::families
