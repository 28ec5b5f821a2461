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
};

}  // namespace

std::span<const FamilyBuilder> detr() {
  return kDetrFamilies;
}

}  // namespace ma::families
