#include "model/families/family_groups.h"

namespace ma::families {

std::span<const FamilyBuilder> encoders() { return {}; }

}  // namespace ma::families
