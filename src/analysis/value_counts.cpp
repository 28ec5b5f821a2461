#include "analysis/value_counts.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "analysis/stats_math.h"
#include "core/dtype_values.h"

namespace ma {
namespace {

constexpr size_t kWide = 65536, kNarrow = 256;

template <typename T, size_t Slots>
void tally(const char* data, size_t n, uint32_t* t0) {
  uint32_t* t1 = t0 + Slots;
  const T* p = reinterpret_cast<const T*>(data);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    T a, b, c, d;
    std::memcpy(&a, p + i, sizeof(T));
    std::memcpy(&b, p + i + 1, sizeof(T));
    std::memcpy(&c, p + i + 2, sizeof(T));
    std::memcpy(&d, p + i + 3, sizeof(T));
    ++t0[a];
    ++t1[b];
    ++t0[c];
    ++t1[d];
  }
  for (; i < n; ++i) {
    T a;
    std::memcpy(&a, p + i, sizeof(T));
    ++t0[a];
  }
}

}  // namespace

PatternCounter::PatternCounter() : wide_(2 * kWide, 0), narrow_(2 * kNarrow, 0) {}

uint32_t count_slots(DType dtype) {
  return dtype_bits(dtype) == 4 ? 256 : counted_patterns(dtype);  // 4-bit types: counted per byte
}

void PatternCounter::count(DType dtype, const char* data, size_t bytes) {
  if (count_slots(dtype) == kWide)
    tally<uint16_t, kWide>(data, bytes / 2, wide_.data());
  else
    tally<uint8_t, kNarrow>(data, bytes, narrow_.data());
}

void PatternCounter::flush_into(DType dtype, std::vector<uint64_t>& totals) {
  const size_t slots = count_slots(dtype);
  std::vector<uint32_t>& t = slots == kWide ? wide_ : narrow_;
  for (size_t i = 0; i < slots; ++i) totals[i] += static_cast<uint64_t>(t[i]) + t[i + slots];
  std::fill(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(2 * slots), 0u);
}

void stats_from_counts(TensorStats& s, const std::vector<uint64_t>& totals, double eps, uint32_t bins) {
  // 4-bit types were counted per byte: each byte holds two elements, low nibble first.
  std::vector<uint64_t> nibbles;
  const std::vector<uint64_t>* counts = &totals;
  if (dtype_bits(s.dtype) == 4) {
    nibbles.assign(16, 0);
    for (size_t b = 0; b < 256; ++b) {
      nibbles[b & 15] += totals[b];
      nibbles[b >> 4] += totals[b];
    }
    counts = &nibbles;
  }
  std::vector<std::pair<double, uint64_t>> finite;
  uint64_t zeros = 0, near = 0;
  for (size_t bits = 0; bits < counts->size(); ++bits) {
    const uint64_t c = (*counts)[bits];
    if (c == 0) continue;
    const double v = element_value(s.dtype, bits);
    if (std::isnan(v)) {
      s.nan_count += c;
      continue;
    }
    if (std::isinf(v)) {
      s.inf_count += c;
      continue;
    }
    if (v == 0) zeros += c;
    if (std::fabs(v) <= eps) near += c;
    finite.emplace_back(v == 0 ? 0.0 : v, c);  // -0 and +0 are one value
  }
  std::sort(finite.begin(), finite.end());
  // Merge the two zeros (and any other equal values) into one entry each.
  size_t out = 0;
  for (size_t i = 0; i < finite.size(); ++i) {
    if (out > 0 && finite[out - 1].first == finite[i].first)
      finite[out - 1].second += finite[i].second;
    else
      finite[out++] = finite[i];
  }
  finite.resize(out);
  const double numel = static_cast<double>(s.numel);
  s.zeros_fraction = s.numel ? static_cast<double>(zeros) / numel : 0;
  s.near_zero_fraction = s.numel ? static_cast<double>(near) / numel : 0;
  stats_from_distinct(s, finite, bins);
}

}  // namespace ma
