// Group speech_asr: the model_types of speech_asr.h's builders.
#include "model/families/speech_asr.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSpeechAsrFamilies{
    FamilyBuilder{"moonshine", build_moonshine},
    FamilyBuilder{"granite_speech", build_granite_speech},
    FamilyBuilder{"kyutai_speech_to_text", build_kyutai_speech_to_text},
    FamilyBuilder{"parakeet_encoder", build_parakeet_encoder},
    FamilyBuilder{"parakeet_ctc", build_parakeet_ctc},
};

}  // namespace

std::span<const FamilyBuilder> speech_asr() {
  return kSpeechAsrFamilies;
}

}  // namespace ma::families
