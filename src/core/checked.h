// Overflow-checked arithmetic for sizes that come from untrusted files.
#pragma once
#include <cstdint>
#include <optional>
#include <span>

namespace ma {

inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Bounds that only need to say "too many": the sum or product, or UINT64_MAX where it overflows.
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  return checked_add(a, b).value_or(UINT64_MAX);
}

inline uint64_t saturating_mul(uint64_t a, uint64_t b) {
  return checked_mul(a, b).value_or(UINT64_MAX);
}

// Product of dims; nullopt on overflow. An empty shape (a scalar) has one element.
inline std::optional<uint64_t> checked_numel(std::span<const uint64_t> dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) {
    auto m = checked_mul(n, d);
    if (!m) return std::nullopt;
    n = *m;
  }
  return n;
}

}  // namespace ma
