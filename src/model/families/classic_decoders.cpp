#include "model/families/family_groups.h"

namespace ma::families {

std::span<const FamilyBuilder> classic_decoders() { return {}; }

}  // namespace ma::families
