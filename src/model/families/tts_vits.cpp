// Group tts_vits: the model_types of tts_vits.h's builders.
#include "model/families/tts_vits.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kTtsVitsFamilies{
    FamilyBuilder{"vits", build_vits},
};

}  // namespace

std::span<const FamilyBuilder> tts_vits() {
  return kTtsVitsFamilies;
}

}  // namespace ma::families
