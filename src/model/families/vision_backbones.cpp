// Group vision_backbones: the model_types of vision_backbones.h's builders (the vision encoders of 2025:
// DINOv3, AIMv2, MLCD).
#include "model/families/vision_backbones.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVisionBackboneFamilies{
    FamilyBuilder{"dinov3_vit", build_dinov3_vit},
    FamilyBuilder{"dinov3_convnext", build_dinov3_convnext},
    FamilyBuilder{"aimv2", build_aimv2},
    FamilyBuilder{"aimv2_vision_model", build_aimv2_vision_model},
    // MLCDVisionConfig's own model_type is mlcd_vision_model; transformers' auto classes map "mlcd" to it.
    FamilyBuilder{"mlcd", build_mlcd},
    FamilyBuilder{"mlcd_vision_model", build_mlcd},
};

}  // namespace

std::span<const FamilyBuilder> vision_backbones() {
  return kVisionBackboneFamilies;
}

}  // namespace ma::families
