// Group vision_f: the model_types of vision_f.h's builders (SegGPT, TVP, EfficientLoFTR).
#include "model/families/vision_f.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVisionFFamilies{
    FamilyBuilder{"seggpt", build_seggpt},
    FamilyBuilder{"tvp", build_tvp},
    FamilyBuilder{"efficientloftr", build_efficientloftr},
};

}  // namespace

std::span<const FamilyBuilder> vision_f() {
  return kVisionFFamilies;
}

}  // namespace ma::families
