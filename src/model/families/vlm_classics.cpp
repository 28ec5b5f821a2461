// The vlm_classics group (family_groups.h): the builders of vlm_classics.h by model_type.
#include "model/families/vlm_classics.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kVlmClassics{
    FamilyBuilder{"git", build_git},
    FamilyBuilder{"git_vision_model", build_git_vision_model},
    FamilyBuilder{"idefics", build_idefics},
    FamilyBuilder{"kosmos-2", build_kosmos2},
};

}  // namespace

std::span<const FamilyBuilder> vlm_classics() {
  return kVlmClassics;
}

}  // namespace ma::families
