// Group speech_gen: the model_types of speech_gen.h's builders.
#include "model/families/speech_gen.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSpeechGenFamilies{
    FamilyBuilder{"encodec", build_encodec},
    FamilyBuilder{"musicgen", build_musicgen},
    FamilyBuilder{"musicgen_decoder", build_musicgen_decoder},
    FamilyBuilder{"musicgen_melody", build_musicgen_melody},
    FamilyBuilder{"musicgen_melody_decoder", build_musicgen_melody_decoder},
};

}  // namespace

std::span<const FamilyBuilder> speech_gen() {
  return kSpeechGenFamilies;
}

}  // namespace ma::families
