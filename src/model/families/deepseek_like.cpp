#include "model/families/family_groups.h"

namespace ma::families {

std::span<const FamilyBuilder> deepseek_like() { return {}; }

}  // namespace ma::families
