// Group speech_tts: the model_types of clvp.h's builders.
#include <array>

#include "model/families/clvp.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSpeechTtsFamilies{
    FamilyBuilder{"clvp", build_clvp},
};

}  // namespace

std::span<const FamilyBuilder> speech_tts() {
  return kSpeechTtsFamilies;
}

}  // namespace ma::families
