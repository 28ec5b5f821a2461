#include "analysis/spectrum/spectral_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ma {
namespace {

// searchsorted(cumsum(σ²) / total, target) + 1, or (truncated, target not reached) the lower bound K.
void energy_rank(const std::vector<double>& s, double total, double target, bool complete,
                 std::optional<uint64_t>& rank, std::optional<uint64_t>& lower_bound) {
  if (!(total > 0)) return;
  double cum = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    cum += s[i] * s[i];
    if (cum / total >= target) {
      rank = i + 1;
      return;
    }
  }
  if (complete)
    rank = s.size();  // rounding left the last partial sum a hair under the target
  else
    lower_bound = s.size();
}

// How many σ exceed `tolerance`; from a truncated spectrum whose every σ does, only the lower bound K.
void count_above(const std::vector<double>& s, double tolerance, bool complete, std::optional<uint64_t>& rank,
                 std::optional<uint64_t>& lower_bound) {
  const auto above =
      static_cast<uint64_t>(std::count_if(s.begin(), s.end(), [&](double v) { return v > tolerance; }));
  if (complete || above < s.size())
    rank = above;
  else
    lower_bound = s.size();
}

}  // namespace

double abs_spectral_norm_bound(const float* w, uint64_t rows, uint64_t cols) {
  if (rows == 0 || cols == 0) return 0;
  std::vector<double> x(cols, 1.0), z(cols);
  double best = std::numeric_limits<double>::infinity();
  for (int step = 0; step < 50; ++step) {
    // z = |W|ᵀ |W| x, one row at a time: y_i = |w_i|·x, then z += y_i |w_i|.
    std::fill(z.begin(), z.end(), 0.0);
    for (uint64_t i = 0; i < rows; ++i) {
      const float* row = w + i * cols;
      double y = 0;
      for (uint64_t j = 0; j < cols; ++j) y += std::fabs(double(row[j])) * x[j];
      if (y == 0) continue;
      for (uint64_t j = 0; j < cols; ++j) z[j] += std::fabs(double(row[j])) * y;
    }
    double upper = 0, xz = 0, xx = 0, top = 0;
    for (uint64_t j = 0; j < cols; ++j) {
      upper = std::max(upper, z[j] / x[j]);
      xz += x[j] * z[j];
      xx += x[j] * x[j];
      top = std::max(top, z[j]);
    }
    best = std::min(best, upper);
    // The Rayleigh quotient is a lower bound on the same ρ: stop once the two meet to 0.1 %.
    if (top == 0 || best <= xz / xx * (1 + 1e-3)) break;
    // The next x: positive everywhere (a bound needs x > 0), what a zero column gives it stays tiny.
    for (uint64_t j = 0; j < cols; ++j) x[j] = std::max(z[j] / top, 1e-12);
  }
  // The sums above carry float64 rounding (a relative 1e-16 per term): widen by far more than it.
  return std::sqrt(best) * (1 + 1e-9);
}

SpectralMetrics spectral_metrics(const SingularValues& sv, const MetricInputs& in) {
  SpectralMetrics m;
  m.design_rank = std::min(in.rows, in.cols);
  const std::vector<double>& s = sv.values;
  if (s.empty() || m.design_rank == 0) {
    m.alpha_unset = "no singular values";
    return m;
  }
  const bool complete = sv.complete && s.size() == m.design_rank;
  m.spectral_norm = s.front();
  // numpy.linalg.matrix_rank's rule for the float32 matrix the SVD decomposes; a σ the Gram method cannot
  // resolve is not counted either.
  const double eps = std::numeric_limits<float>::epsilon();
  const double numpy_tolerance =
      std::max(s.front() * static_cast<double>(std::max(in.rows, in.cols)) * eps, sv.resolution);
  m.tolerance = in.tolerance ? *in.tolerance : numpy_tolerance;
  count_above(s, m.tolerance, complete, m.actual_rank, m.actual_rank_lower_bound);
  if (in.storage_roundoff > 0 && in.storage_roundoff < 1) {
    const double rounding =
        in.storage_roundoff / (1 - in.storage_roundoff) * in.abs_spectral_norm + in.storage_floor;
    m.storage_tolerance = std::max(numpy_tolerance, rounding);
    count_above(s, *m.storage_tolerance, complete, m.storage_rank, m.storage_rank_lower_bound);
  }

  double sum_sq = 0, sum = 0;
  for (double v : s) {
    sum_sq += v * v;
    sum += v;
  }
  // The whole energy: the σ's own when every σ is there (numpy's definition), else ‖W‖²_F.
  const double total = complete ? sum_sq : in.frobenius_squared;
  energy_rank(s, total, 0.9, complete, m.rank_90, m.rank_90_lower_bound);
  energy_rank(s, total, in.energy, complete, m.energy_rank, m.energy_rank_lower_bound);
  m.stable_rank = s.front() > 0 ? in.frobenius_squared / (s.front() * s.front()) : 0;
  if (!complete) {
    m.alpha_unset = "a truncated spectrum (the top K only)";
    return m;
  }
  if (sum > 0) {
    double h = 0;
    for (double v : s)
      if (v > 0) h -= (v / sum) * std::log(v / sum);
    m.effective_rank = std::exp(h);
  }
  // A matrix below full numerical rank has an infinite condition number: its σ_min is rounding noise.
  if (m.actual_rank == m.design_rank && s.back() > 0) m.condition_number = s.front() / s.back();
  // WeightWatcher's eigenvalues: σ² above EVALS_THRESH; and only σ the rank counts (m.tolerance is never
  // below the Gram method's resolution unless --rank-tol says so).
  std::vector<double> eigenvalues;
  eigenvalues.reserve(s.size());
  for (double v : s)
    if (v > m.tolerance && v > sv.resolution && v * v > kAlphaEigenvalueThreshold)
      eigenvalues.push_back(v * v);
  m.alpha_eigenvalues = eigenvalues.size();
  m.alpha = fit_power_law(std::move(eigenvalues));
  if (!m.alpha)
    m.alpha_unset = "too few eigenvalues to fit: " + std::to_string(m.alpha_eigenvalues) +
                    " σ² above 1e-5 whose σ the rank counts (a fit needs " +
                    std::to_string(kAlphaMinEigenvalues) + ", not all equal)";
  return m;
}

}  // namespace ma
