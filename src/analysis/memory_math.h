// Arithmetic of the memory estimates: every product of config numbers and user flags is checked, since a
// corrupt config (10^7 heads) or a flag (--batch 10^15) can exceed 64 bits; overflow is a clear Limit error.
// `what` at every call names the factors as the README's error rule asks: the record's fields under
// transformers' names (num_key_value_heads, head_dim, ...), "context" and "--batch"; the entry point of an
// estimate (naming_source) puts the file they come from in front and the flags' values behind.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "core/checked.h"
#include "core/error.h"
#include "core/units.h"

namespace ma::memory {

// How an overflow names the parameter count, the figure every weight and optimizer estimate multiplies.
inline constexpr std::string_view kParameterFactor =
    "the parameter count (of hidden_size, intermediate_size, num_hidden_layers, vocab_size)";

// The file an overflow names until naming_source gives it the model's (plan and serve call the estimates
// without it).
inline constexpr std::string_view kEstimateFile = "memory estimate";
inline constexpr std::string_view kOverflowRule = "the estimate overflows 64-bit arithmetic";

[[noreturn]] inline void overflow(std::string_view what) {
  throw Error(ErrorKind::Limit, std::string(kEstimateFile), std::string(what),
              std::string(kOverflowRule) + " (absurd config values or --batch/--context)");
}

// Runs `estimate`; an overflow in it becomes one line naming `file` (the model's config.json, or the weights
// file the record was read from), the factors and, when they are among them, `flags` (the values --batch and
// the context had, and where the context came from). Other errors, and overflows already named, pass
// unchanged.
template <class F>
decltype(auto) naming_source(const std::string& file, const std::string& flags, F&& estimate) {
  try {
    return std::forward<F>(estimate)();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Limit || e.file() != kEstimateFile) throw;
    const std::string& f = e.field();
    const bool flag_factor =
        f.find("--batch") != std::string::npos || f.find("context") != std::string::npos ||
        f.find("KV cache") != std::string::npos || f.find("activations") != std::string::npos;
    throw Error(ErrorKind::Limit, file, f,
                flag_factor
                    ? "the memory estimate overflows 64-bit arithmetic (" + flags +
                          "): the config's sizes are beyond any real model, or --batch/--context too "
                          "large"
                    : "the memory estimate overflows 64-bit arithmetic: the config's sizes are beyond "
                      "any real model");
  }
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
