// "layers.2" before "layers.10": digit runs compare by value.
#pragma once
#include <string_view>

namespace ma {

bool natural_less(std::string_view a, std::string_view b);

}  // namespace ma
