// Group speech_d: the model_types of speech_d.h's builders.
#include "model/families/speech_d.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSpeechDFamilies{
    FamilyBuilder{"clap", build_clap},
    FamilyBuilder{"clap_text_model", build_clap_text_model},
    FamilyBuilder{"clap_audio_model", build_clap_audio_model},
};

}  // namespace

std::span<const FamilyBuilder> speech_d() {
  return kSpeechDFamilies;
}

}  // namespace ma::families
