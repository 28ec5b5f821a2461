// Group text_d: the model_types of text_d.h's builders.
#include "model/families/text_d.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kTextDFamilies{
    FamilyBuilder{"cpmant", build_cpmant},
    FamilyBuilder{"lxmert", build_lxmert},
};

}  // namespace

std::span<const FamilyBuilder> text_d() {
  return kTextDFamilies;
}

}  // namespace ma::families
