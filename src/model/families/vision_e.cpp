// Group vision_e: the model_types of vision_e.h's builders (DiNAT, Swin2SR, HGNetV2, TextNet).
#include "model/families/vision_e.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVisionEFamilies{
    FamilyBuilder{"dinat", build_dinat},
    FamilyBuilder{"swin2sr", build_swin2sr},
    FamilyBuilder{"hgnet_v2", build_hgnet_v2},
    FamilyBuilder{"textnet", build_textnet},
};

}  // namespace

std::span<const FamilyBuilder> vision_e() {
  return kVisionEFamilies;
}

}  // namespace ma::families
