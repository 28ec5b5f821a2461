// Group vision_d: the model_types of vision_d.h's builders (Hiera, V-JEPA 2, SwiftFormer).
#include "model/families/vision_d.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVisionDFamilies{
    FamilyBuilder{"hiera", build_hiera},
    FamilyBuilder{"vjepa2", build_vjepa2},
    FamilyBuilder{"swiftformer", build_swiftformer},
};

}  // namespace

std::span<const FamilyBuilder> vision_d() {
  return kVisionDFamilies;
}

}  // namespace ma::families
