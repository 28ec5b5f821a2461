#include "model/families/family_groups.h"

namespace ma::families {

std::span<const FamilyBuilder> multimodal() { return {}; }

}  // namespace ma::families
