// CSV cells as every export writes them (RFC 4180): text quoted when it holds a comma, quote or newline;
// numbers with 17 significant digits (they read back as the same double); undefined numbers empty.
#pragma once
#include <string>
#include <string_view>

namespace ma {

std::string csv_text(std::string_view s);
std::string csv_number(double v);  // "" for NaN, inf / -inf for ±Inf

}  // namespace ma
