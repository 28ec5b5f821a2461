#include "hub/response_headers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

namespace ma {
namespace {

// Optional whitespace around a value (RFC 9110 OWS); the HTTP client already strips it, a fuzzer does not.
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Exactly a run of decimal digits that fits 64 bits: from_chars takes no sign, no space, no "0x", and reports
// overflow instead of wrapping.
std::optional<uint64_t> digits(std::string_view s) {
  uint64_t v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// A number of seconds: from_chars' general format (digits, a fraction, an exponent, "inf", "nan"; never hex,
// a
// '+' or inner spaces), then checked before anyone converts it: NaN and negatives are absent, anything above
// kMaxHeaderWaitSeconds (infinity included) is clamped to it.
std::optional<double> seconds(std::string_view s) {
  s = trim(s);
  double v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ptr != end) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Beyond a double's range, v untouched: a negative number, a value below the smallest double (a negative
    // exponent: no wait at all) or one above the largest (clamped).
    if (s.front() == '-') return std::nullopt;
    const bool tiny = s.find("e-") != std::string_view::npos || s.find("E-") != std::string_view::npos;
    return tiny ? 0.0 : kMaxHeaderWaitSeconds;
  }
  if (ec != std::errc() || std::isnan(v) || v < 0) return std::nullopt;
  return v == 0 ? 0.0 : std::min(v, kMaxHeaderWaitSeconds);  // -0 becomes 0
}

// The parts of `s` between separators.
template <typename Visit>
void split(std::string_view s, char separator, Visit visit) {
  for (size_t start = 0;;) {
    const size_t at = s.find(separator, start);
    visit(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return;
    start = at + 1;
  }
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return (x | 0x20) == (y | 0x20); });
}

}  // namespace

std::optional<double> parse_retry_after(std::string_view value) {
  return seconds(value);
}

std::optional<double> parse_ratelimit_reset(std::string_view value) {
  std::optional<double> wait;
  split(value, ',', [&](std::string_view policy) {
    std::optional<uint64_t> remaining;
    std::optional<double> reset;
    bool name = true;  // the policy's name comes first, then its parameters
    split(policy, ';', [&](std::string_view param) {
      if (std::exchange(name, false)) return;
      const size_t eq = param.find('=');
      if (eq == std::string_view::npos) return;
      const std::string_view key = trim(param.substr(0, eq)), text = param.substr(eq + 1);
      if (key == "r") remaining = digits(trim(text));
      if (key == "t") reset = seconds(text);
    });
    if (remaining == 0u && reset) wait = std::max(wait.value_or(0.0), *reset);
  });
  return wait;
}

std::optional<uint64_t> parse_byte_count(std::string_view value) {
  return digits(trim(value));
}

std::optional<ContentRange> parse_content_range(std::string_view value) {
  value = trim(value);
  constexpr size_t kUnit = 6;  // "bytes " (the unit is case-insensitive, RFC 9110 §14.1)
  if (value.size() < kUnit || !equals_ignoring_case(value.substr(0, kUnit - 1), "bytes") ||
      value[kUnit - 1] != ' ')
    return std::nullopt;
  value.remove_prefix(kUnit);
  const size_t dash = value.find('-'), slash = value.find('/');
  if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash) return std::nullopt;
  const auto first = digits(value.substr(0, dash));
  const auto last = digits(value.substr(dash + 1, slash - dash - 1));
  const auto total = digits(value.substr(slash + 1));
  if (!first || !last || !total || *first > *last || *last >= *total) return std::nullopt;
  return ContentRange{*first, *last, *total};
}

}  // namespace ma
