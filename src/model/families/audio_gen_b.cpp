// Group audio_gen_b: the model_types of audio_gen_b.h's builders.
#include "model/families/audio_gen_b.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kAudioGenBFamilies{
    FamilyBuilder{"pop2piano", build_pop2piano},
    FamilyBuilder{"moshi", build_moshi},
    FamilyBuilder{"dia", build_dia},
};

}  // namespace

std::span<const FamilyBuilder> audio_gen_b() {
  return kAudioGenBFamilies;
}

}  // namespace ma::families
