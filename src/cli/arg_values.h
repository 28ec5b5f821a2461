// Option values, checked the same way in every subcommand. Numbers: the whole text must be the number, and it
// is range-checked before any cast (so `--pp 4294967297` or `--top 1e30` is a usage error, not a wrapped
// value); the error names the flag and the accepted range. Image paths: the extension says the format.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace ma::cli {

// The most tokens a token count may name (plan's --context, perf's --seq and --kv-len): far past any
// context window.
inline constexpr uint64_t kMaxTokenCount = 1ull << 40;

// An integer in [min, max]; decimal digits only (no sign, no exponent, no spaces).
uint64_t integer_arg(const std::string& flag, const std::string& text, uint64_t min, uint64_t max);
// A finite decimal number in [min, max].
double number_arg(const std::string& flag, const std::string& text, double min, double max);
// A finite number > 0 (and <= max).
double positive_number_arg(const std::string& flag, const std::string& text, double max = 1e300);
// A layer range "A-B" (inclusive) or one layer "N".
std::pair<uint32_t, uint32_t> layer_range_arg(const std::string& flag, const std::string& text);
// One of `choices`; the error lists them.
std::string choice_arg(const std::string& flag, const std::string& text,
                       std::initializer_list<const char*> choices);
// An image output: FILE.png or FILE.svg (any case), or "-" for SVG on stdout. Anything else is refused
// rather than written as PNG bytes under a name that promises another format.
std::string image_path_arg(const std::string& flag, const std::string& text);

}  // namespace ma::cli
