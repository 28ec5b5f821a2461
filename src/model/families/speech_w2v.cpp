// Group speech_w2v: the model_types of speech_w2v.h's builders.
#include "model/families/speech_w2v.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kSpeechW2vFamilies{
    FamilyBuilder{"wavlm", build_wavlm},
    FamilyBuilder{"data2vec-audio", build_data2vec_audio},
    FamilyBuilder{"unispeech", build_unispeech},
    FamilyBuilder{"unispeech-sat", build_unispeech_sat},
    FamilyBuilder{"sew", build_sew},
    FamilyBuilder{"wav2vec2-conformer", build_wav2vec2_conformer},
    FamilyBuilder{"wav2vec2-bert", build_wav2vec2_bert},
};

}  // namespace

std::span<const FamilyBuilder> speech_w2v() {
  return kSpeechW2vFamilies;
}

}  // namespace ma::families
