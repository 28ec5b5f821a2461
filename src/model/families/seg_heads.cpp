// Group seg_heads: the model_types of seg_heads.h's builders.
#include "model/families/seg_heads.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSegHeadsFamilies{
    FamilyBuilder{"maskformer-swin", build_maskformer_swin},
    FamilyBuilder{"maskformer", build_maskformer},
    FamilyBuilder{"upernet", build_upernet},
};

}  // namespace

std::span<const FamilyBuilder> seg_heads() {
  return kSegHeadsFamilies;
}

}  // namespace ma::families
