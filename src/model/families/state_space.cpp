#include "model/families/family_groups.h"

namespace ma::families {

std::span<const FamilyBuilder> state_space() { return {}; }

}  // namespace ma::families
