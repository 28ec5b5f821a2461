#include "analysis/stats_math.h"

#include <algorithm>
#include <cmath>

namespace ma {
std::pair<double, double> histogram_range(double min, double max) {
  if (min == max) return {min - 0.5, max + 0.5};
  return {min, max};
}

std::vector<double> histogram_edges(double first, double last, uint32_t bins) {
  std::vector<double> e(bins + 1);
  const double step = (last - first) / bins;
  if (std::isfinite(step)) {
    for (uint32_t i = 0; i <= bins; ++i) e[i] = static_cast<double>(i) * step + first;
  } else {
    // A range past DBL_MAX (float64 values near ±1.8e308 of both signs): last − first overflows, and numpy's
    // i·inf + first is NaN at i = 0 (numpy.histogram raises). At half scale nothing overflows —
    // |first/2|, |last/2| and their difference are at most DBL_MAX — and halving and doubling such large
    // values is exact: the same linspace, without the overflow.
    const double half_first = first / 2, half_step = (last / 2 - half_first) / bins;
    for (uint32_t i = 0; i <= bins; ++i) e[i] = (static_cast<double>(i) * half_step + half_first) * 2;
  }
  e[bins] = last;
  return e;
}

namespace {

// 1, or ½ where the edges' range overflows float64 (histogram_edges): the binner then works at half scale.
double stats_math_bin_scale(const std::vector<double>& edges) {
  return std::isfinite(edges.back() - edges.front()) ? 1.0 : 0.5;
}

}  // namespace

HistogramBinner::HistogramBinner(const std::vector<double>& edges)
    : edges_(edges),
      scale_(stats_math_bin_scale(edges)),
      first_(edges.front() * scale_),
      norm_(static_cast<double>(edges.size() - 1) / (edges.back() * scale_ - edges.front() * scale_)),
      bins_(static_cast<uint32_t>(edges.size() - 1)) {}

PercentileRank percentile_rank(double q, uint64_t n) {
  const double h = q / 100.0 * static_cast<double>(n - 1);
  const double below = std::floor(h);
  return {static_cast<uint64_t>(below), h - below};
}

double interpolate(double below, double above, double t) {
  // numpy's _lerp: from the nearer end, so that t = 1 gives `above` exactly.
  const double d = above - below;
  return t >= 0.5 ? above - d * (1 - t) : below + d * t;
}

void Moments::merge(const Moments& o) {
  if (o.n == 0) return;
  if (n == 0) {
    *this = o;
    return;
  }
  const double na = n, nb = o.n, nn = na + nb;
  const double d = o.mean - mean, d2 = d * d, d3 = d2 * d, d4 = d2 * d2;
  const double m4n = m4 + o.m4 + d4 * na * nb * (na * na - na * nb + nb * nb) / (nn * nn * nn) +
                     6 * d2 * (na * na * o.m2 + nb * nb * m2) / (nn * nn) +
                     4 * d * (na * o.m3 - nb * m3) / nn;
  const double m3n = m3 + o.m3 + d3 * na * nb * (na - nb) / (nn * nn) + 3 * d * (na * o.m2 - nb * m2) / nn;
  m2 = m2 + o.m2 + d2 * na * nb / nn;
  m3 = m3n;
  m4 = m4n;
  mean = mean + d * nb / nn;
  n = nn;
}

Moments moments_of_block(const double* x, size_t count) {
  Moments m;
  if (count == 0) return m;
  // Compensated, as stats' sum is: a plain sum of [1e30, -1e30, 1] is 0, and a correction pass over the
  // residuals x - mean only adds their rounding (compare gave a mean of 0.56 there where stats gives 1/3).
  CompensatedSum sum;
  for (size_t i = 0; i < count; ++i) sum.add(x[i]);
  m.n = static_cast<double>(count);
  m.mean = sum.value() / m.n;
  for (size_t i = 0; i < count; ++i) {
    const double d = x[i] - m.mean, d2 = d * d;
    m.m2 += d2;
    m.m3 += d2 * d;
    m.m4 += d2 * d2;
  }
  return m;
}

void apply_moments(TensorStats& s, const Moments& m) {
  if (m.n == 0) return;
  s.mean = m.mean;
  s.var = m.m2 / m.n;
  s.std = std::sqrt(s.var);
  // Undefined (NaN, JSON null) for a constant tensor — m4 / m2² is 0 / 0 — and where the moments
  // overflowed (float64 values near its maximum). As scipy.stats.kurtosis decides it: a variance within
  // float64's resolution of the squared mean (a constant whose mean came out an ulp off) is a constant too,
  // not the -2 that dividing its rounding by itself gives.
  const double resolution = 1e-15 * m.mean;  // numpy.finfo(float64).resolution
  const bool constant = !(s.var > resolution * resolution);
  s.kurtosis =
      !std::isfinite(m.m2) || !std::isfinite(m.m4) || constant ? NAN : (m.m4 / m.n) / (s.var * s.var) - 3;
}

void stats_from_distinct(TensorStats& s, const std::vector<std::pair<double, uint64_t>>& sorted,
                         uint32_t bins) {
  uint64_t n = 0;
  CompensatedSum sum, squares;
  for (const auto& [v, c] : sorted) {
    n += c;
    const double dc = static_cast<double>(c);
    sum.add(v * dc);
    squares.add(v * v * dc);
  }
  s.finite = n;
  s.l2_norm = std::sqrt(squares.value());
  s.histogram.counts.assign(bins, 0);
  if (n == 0) return;
  const double mean = sum.value() / static_cast<double>(n);
  CompensatedSum m2, m3, m4;
  for (const auto& [v, c] : sorted) {
    const double d = v - mean, d2 = d * d, dc = static_cast<double>(c);
    m2.add(d2 * dc);
    m3.add(d2 * d * dc);
    m4.add(d2 * d2 * dc);
  }
  apply_moments(s, Moments{static_cast<double>(n), mean, m2.value(), m3.value(), m4.value()});
  s.min = sorted.front().first;
  s.max = sorted.back().first;
  s.abs_max = std::max(std::fabs(s.min), std::fabs(s.max));

  // Order statistics by walking the cumulative counts once, all percentiles together (they are ascending).
  std::vector<uint64_t> ranks;
  std::vector<PercentileRank> pr;
  for (double q : kPercentiles) {
    pr.push_back(percentile_rank(q, n));
    ranks.push_back(pr.back().below);
    ranks.push_back(std::min(pr.back().below + 1, n - 1));
  }
  std::vector<size_t> order(ranks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ranks[a] < ranks[b]; });
  std::vector<double> at(ranks.size());
  size_t next = 0;
  uint64_t seen = 0;
  for (const auto& [v, c] : sorted) {
    seen += c;
    while (next < order.size() && ranks[order[next]] < seen) at[order[next++]] = v;
  }
  for (size_t i = 0; i < pr.size(); ++i)
    s.percentiles[i] = interpolate(at[2 * i], at[2 * i + 1], pr[i].fraction);

  auto [first, last] = histogram_range(s.min, s.max);
  s.histogram.edges = histogram_edges(first, last, bins);
  s.histogram.counts.assign(bins, 0);
  HistogramBinner binner(s.histogram.edges);
  for (const auto& [v, c] : sorted) s.histogram.counts[binner.bin(v)] += c;
}

}  // namespace ma
