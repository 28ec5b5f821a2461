// Group csm_mimi: the model_types of csm_mimi.h's builders.
#include "model/families/csm_mimi.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kCsmMimiFamilies{
    FamilyBuilder{"mimi", build_mimi},
    FamilyBuilder{"csm", build_csm},
    FamilyBuilder{"csm_depth_decoder_model", build_csm_depth_decoder},
};

}  // namespace

std::span<const FamilyBuilder> csm_mimi() {
  return kCsmMimiFamilies;
}

}  // namespace ma::families
