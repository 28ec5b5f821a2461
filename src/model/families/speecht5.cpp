// Group speecht5: the model_types of speecht5.h's builders.
#include "model/families/speecht5.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSpeechT5Families{
    FamilyBuilder{"speecht5", build_speecht5},
    FamilyBuilder{"hifigan", build_speecht5_hifigan},
};

}  // namespace

std::span<const FamilyBuilder> speecht5() {
  return kSpeechT5Families;
}

}  // namespace ma::families
