// The detr group (family_groups.h): the builders of detr.h by model_type.
#include "model/families/detr.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kDetrFamilies{
    FamilyBuilder{"detr", build_detr},
    FamilyBuilder{"table-transformer", build_table_transformer},
    FamilyBuilder{"conditional_detr", build_conditional_detr},
    FamilyBuilder{"deformable_detr", build_deformable_detr},
    FamilyBuilder{"rt_detr", build_rt_detr},
    FamilyBuilder{"rt_detr_v2", build_rt_detr_v2},
    FamilyBuilder{"dab-detr", build_dab_detr},
    FamilyBuilder{"d_fine", build_d_fine},
    FamilyBuilder{"omdet-turbo", build_omdet_turbo},
};

}  // namespace

std::span<const FamilyBuilder> detr() {
  return kDetrFamilies;
}

}  // namespace ma::families
