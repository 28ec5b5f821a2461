// Group bark: the model_types of bark.h's builders.
#include "model/families/bark.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kBarkFamilies{
    FamilyBuilder{"bark", build_bark},
    FamilyBuilder{"semantic", build_bark_semantic},
    FamilyBuilder{"coarse_acoustics", build_bark_coarse_acoustics},
    FamilyBuilder{"fine_acoustics", build_bark_fine_acoustics},
};

}  // namespace

std::span<const FamilyBuilder> bark() {
  return kBarkFamilies;
}

}  // namespace ma::families
