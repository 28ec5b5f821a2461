// Arithmetic of the memory estimates: every product of config numbers and user flags is checked, since a
// corrupt config (10^7 heads) or a flag (--batch 10^15) can exceed 64 bits; overflow is a clear Limit error.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/checked.h"
#include "core/error.h"
#include "core/units.h"

namespace ma::memory {

[[noreturn]] inline void overflow(std::string_view what) {
  throw Error(ErrorKind::Limit, "memory estimate", std::string(what),
              "the estimate overflows 64-bit arithmetic (absurd config values or --batch/--context)");
}

inline uint64_t mul(std::initializer_list<uint64_t> factors, std::string_view what) {
  uint64_t r = 1;
  for (uint64_t f : factors) {
    auto m = checked_mul(r, f);
    if (!m) overflow(what);
    r = *m;
  }
  return r;
}

inline uint64_t add(std::initializer_list<uint64_t> terms, std::string_view what) {
  uint64_t r = 0;
  for (uint64_t t : terms) {
    auto s = checked_add(r, t);
    if (!s) overflow(what);
    r = *s;
  }
  return r;
}

inline uint64_t ceil_div(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : a / b + (a % b != 0);
}

// pct% of n, rounded down, without overflowing for any n.
inline uint64_t percent_of(uint64_t n, uint64_t pct) {
  return n / 100 * pct + n % 100 * pct / 100;
}

// "1,234,567" — every number in a formula is written this way.
inline std::string num(uint64_t n) {
  return with_thousands(n);
}

}  // namespace ma::memory
