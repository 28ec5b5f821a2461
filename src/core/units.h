// Human-readable numbers: "6.74B", "12.55 GiB", "1,234,567".
#pragma once
#include <cstdint>
#include <string>

namespace ma {

std::string with_thousands(uint64_t n);  // 1234567 -> "1,234,567"
std::string human_count(uint64_t n);     // 6738415616 -> "6.74B"
std::string human_bytes(uint64_t n);     // binary units: "12.55 GiB"
std::string short_number(double v);      // six significant digits, no trailing zeros: "0.5", "1e+300"
std::string exact_number(double v);      // shortest round-trip spelling: 1e-05, 500000, 0.25; "unknown" if not finite

}  // namespace ma
