// Group speech_c: the model_types of speech_c.h's builders.
#include "model/families/speech_c.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSpeechCFamilies{
    FamilyBuilder{"sew-d", build_sew_d},
    FamilyBuilder{"audio-spectrogram-transformer", build_audio_spectrogram_transformer},
};

}  // namespace

std::span<const FamilyBuilder> speech_c() {
  return kSpeechCFamilies;
}

}  // namespace ma::families
