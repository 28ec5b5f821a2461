// Group audio_llms: the model_types of audio_llms.h's builders.
#include "model/families/audio_llms.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kAudioLlmFamilies{
    FamilyBuilder{"voxtral_realtime", build_voxtral_realtime},
    FamilyBuilder{"voxtral_realtime_encoder", build_voxtral_realtime_encoder},
    FamilyBuilder{"voxtral_realtime_text", build_voxtral_realtime_text},
    FamilyBuilder{"audioflamingo3", build_audioflamingo3},
    FamilyBuilder{"audioflamingo3_encoder", build_audioflamingo3_encoder},
    FamilyBuilder{"musicflamingo", build_musicflamingo},
    FamilyBuilder{"glmasr", build_glmasr},
    FamilyBuilder{"glmasr_encoder", build_glmasr_encoder},
};

}  // namespace

std::span<const FamilyBuilder> audio_llms() {
  return kAudioLlmFamilies;
}

}  // namespace ma::families
