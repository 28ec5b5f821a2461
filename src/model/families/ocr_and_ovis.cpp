// Group ocr_and_ovis: the model_types of ocr_and_ovis.h's builders.
#include "model/families/ocr_and_ovis.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kOcrAndOvisFamilies{
    FamilyBuilder{"got_ocr2", build_got_ocr2},
    FamilyBuilder{"ovis2", build_ovis2},
    FamilyBuilder{"kosmos-2.5", build_kosmos2_5},
};

}  // namespace

std::span<const FamilyBuilder> ocr_and_ovis() {
  return kOcrAndOvisFamilies;
}

}  // namespace ma::families
