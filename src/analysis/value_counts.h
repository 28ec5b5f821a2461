// The exact path for types of at most 16 bits: count every bit pattern (a BF16 tensor has at most 65,536
// distinct values), then derive every statistic from the counts. Counting is the whole cost of the scan, so
// the kernel is a tight loop over two tables of 32-bit counters (alternating tables keeps repeated values
// from waiting on each other's increments), flushed into 64-bit totals per work unit.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/weight_stats.h"

namespace ma {

class PatternCounter {
 public:
  PatternCounter();
  // Tallies the elements in `bytes` bytes of `dtype` data (a whole number of elements; F4: of bytes).
  // At most 2^31 elements between flushes.
  void count(DType dtype, const char* data, size_t bytes);
  // Adds the tallies to `totals` (sized counted_patterns(dtype), or 256 for F4's byte pairs) and clears them.
  void flush_into(DType dtype, std::vector<uint64_t>& totals);

 private:
  std::vector<uint32_t> wide_;    // 2 x 65,536
  std::vector<uint32_t> narrow_;  // 2 x 256
};

// Bit-pattern slots a tensor of `dtype` needs in its totals.
uint32_t count_slots(DType dtype);

// Every statistic from the totals: values decoded exactly, NaN / Inf / zeros / near-zeros counted, the
// finite values' moments, percentiles and histogram.
void stats_from_counts(TensorStats& s, const std::vector<uint64_t>& totals, double eps, uint32_t bins);

}  // namespace ma
