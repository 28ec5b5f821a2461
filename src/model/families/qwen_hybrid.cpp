#include "model/families/family_groups.h"

namespace ma::families {

std::span<const FamilyBuilder> qwen_hybrid() { return {}; }

}  // namespace ma::families
