// The arithmetic behind weight statistics, written to agree with numpy's float64 results: histogram edges and
// bin assignment as numpy.histogram does them, percentile interpolation as numpy.percentile's "linear", and
// mean / central moments merged with Pébay's formulas so that partial results combine exactly as one pass.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/weight_stats.h"

namespace ma {

// numpy.histogram's range for the finite values: [min, max], or [v - 0.5, v + 0.5] for a constant.
std::pair<double, double> histogram_range(double min, double max);
// numpy.linspace(first, last, bins + 1). Where last − first overflows float64 (values near ±DBL_MAX of both
// signs, where numpy.histogram raises), the same edges computed at half scale: every edge finite, the first
// `first` and the last `last` exactly.
std::vector<double> histogram_edges(double first, double last, uint32_t bins);

// The bin numpy.histogram puts x in (x within [edges.front(), edges.back()]); over edges whose range
// overflows, the same rule at half scale.
class HistogramBinner {
 public:
  explicit HistogramBinner(const std::vector<double>& edges);
  // Inline and without branches: it runs once per element of every 32/64-bit and decoded block tensor, and
  // values near a bin edge would make a branch on the corrections mispredict.
  uint32_t bin(double x) const {
    // numpy's fast path for equal bins, including its two corrections for rounding at the edges.
    const int64_t last = static_cast<int64_t>(bins_) - 1;
    // scale_ is 1 (x * 1 is x exactly: numpy's arithmetic) but for a range past DBL_MAX.
    int64_t i = static_cast<int64_t>((x * scale_ - first_) * norm_);
    i = i > last ? last : i;
    i = i < 0 ? 0 : i;
    const int64_t down = x < edges_[static_cast<size_t>(i)];
    const int64_t up = (down == 0) & (i != last) & (x >= edges_[static_cast<size_t>(i) + 1]);
    i += up - down;
    return static_cast<uint32_t>(i < 0 ? 0 : i);
  }

 private:
  const std::vector<double>& edges_;
  double scale_, first_, norm_;
  uint32_t bins_;
};

// numpy.percentile "linear": the value at fractional rank q/100 * (n - 1) between the order statistics
// `below` (rank floor) and `above` (rank floor + 1).
struct PercentileRank {
  uint64_t below = 0;
  double fraction = 0;
};
PercentileRank percentile_rank(double q, uint64_t n);
double interpolate(double below, double above, double fraction);

// Neumaier's compensated sum: sums of values of very different magnitudes (3e38 next to 0.1) stay exact to
// the last bits, as math.fsum's do.
struct CompensatedSum {
  double sum = 0, c = 0;
  void add(double x) {
    const double t = sum + x;
    c += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  double value() const { return sum + c; }
};

// Count, mean and central moment sums M2..M4 of a set of values; merge() combines two disjoint sets.
struct Moments {
  double n = 0, mean = 0, m2 = 0, m3 = 0, m4 = 0;
  void merge(const Moments& o);
};
// The moments of `count` copies of one value, or of a block of values (two passes over the block, which is
// small enough to stay in cache).
Moments moments_of_block(const double* x, size_t count);

// Fills mean, var, std and kurtosis from moments over `finite` values (m3 is not read). The kurtosis is NaN
// (undefined: JSON null, "-" on the console) for a constant — variance 0, or within float64's resolution of
// the squared mean, as scipy.stats.kurtosis returns nan — and where the moments overflowed.
void apply_moments(TensorStats& s, const Moments& m);

// Every statistic of a tensor from its distinct finite values with their counts, sorted by value (the exact
// path for types of at most 16 bits).
void stats_from_distinct(TensorStats& s, const std::vector<std::pair<double, uint64_t>>& sorted,
                         uint32_t bins);

}  // namespace ma
