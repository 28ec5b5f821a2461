// Group audio_codecs: the model_types of audio_codecs.h's builders.
#include "model/families/audio_codecs_tts.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kAudioCodecFamilies{
    FamilyBuilder{"dac", build_dac},
    FamilyBuilder{"xcodec", build_xcodec},
    FamilyBuilder{"univnet", build_univnet},
    FamilyBuilder{"fastspeech2_conformer", build_fastspeech2_conformer},
    FamilyBuilder{"fastspeech2_conformer_with_hifigan", build_fastspeech2_conformer_with_hifigan},
};

}  // namespace

std::span<const FamilyBuilder> audio_codecs_tts() {
  return kAudioCodecFamilies;
}

}  // namespace ma::families
