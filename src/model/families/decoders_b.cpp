// Group decoders_b: the model_types of decoders_b.h's builders.
#include "model/families/decoders_b.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kDecodersBFamilies{
    FamilyBuilder{"doge", build_doge},
    FamilyBuilder{"gemma4_assistant", build_gemma4_assistant},
    FamilyBuilder{"gemma4_unified_assistant", build_gemma4_unified_assistant},
    FamilyBuilder{"blt", build_blt},
};

}  // namespace

std::span<const FamilyBuilder> decoders_b() {
  return kDecodersBFamilies;
}

}  // namespace ma::families
