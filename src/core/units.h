// Human-readable numbers: "6.74B", "12.55 GiB", "1,234,567", "0-2,5,7-9". Every report formats its counts,
// sizes and index runs here, so the console, Markdown and diagrams agree.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ma {

std::string with_thousands(uint64_t n);  // 1234567 -> "1,234,567"
// A rate or an estimate to the nearest whole, with separators: 40745184.4 -> "40,745,184"; negatives as 0.
std::string rounded_with_thousands(double v);
std::string human_count(uint64_t n);    // 6738415616 -> "6.74B"
std::string human_bytes(uint64_t n);    // binary units: "12.55 GiB"
std::string bytes_exactly(uint64_t n);  // both: "12.55 GiB (13,476,831,232 bytes)"; "641 B" alone
std::string short_number(double v);     // six significant digits, no trailing zeros: "0.5", "1e+300"
std::string exact_number(
    double v);  // shortest round-trip spelling: 1e-05, 500000, 0.25; "unknown" if not finite
std::string plain_number(double v);  // integral values with separators ("500,000"), else exact_number

// Estimates (the performance model's figures): four significant digits between 1e-3 and 1e5 ("269.7",
// "0.05"), else a short exponent ("4.88e7"); "n/a" / "inf" when not finite.
std::string brief_number(double v);
std::string duration_text(double seconds);  // in the unit that keeps it in [1, 1000): "12.34 ms", "456 us"
std::string percent_text(double fraction);  // 0.5466 -> "54.66%"
std::string fixed_decimals(double v, int decimals);        // printf's %.*f: 0.01562, 2 -> "0.02"
std::string si_quantity(double v, std::string_view unit);  // 3.81e5, "FLOP" -> "381 kFLOP"

// Sorted indices as runs: {0,1,2,5,7,8,9} -> "0-2,5,7-9" (a run of two is "0-1"); "" for none.
std::string index_ranges(const std::vector<uint32_t>& sorted);

}  // namespace ma
