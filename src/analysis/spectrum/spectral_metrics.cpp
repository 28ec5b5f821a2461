#include "analysis/spectrum/spectral_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

}  // namespace

SpectralMetrics spectral_metrics(const SingularValues& sv, const MetricInputs& in) {
  SpectralMetrics m;
  m.design_rank = std::min(in.rows, in.cols);
  const std::vector<double>& s = sv.values;
  if (s.empty() || m.design_rank == 0) return m;
  const bool complete = sv.complete && s.size() == m.design_rank;
  m.spectral_norm = s.front();
  if (in.tolerance) {
    m.tolerance = *in.tolerance;
  } else {
    const double eps = std::numeric_limits<float>::epsilon();
    m.tolerance = std::max({s.front() * static_cast<double>(std::max(in.rows, in.cols)) * eps,
                            in.storage_roundoff * std::sqrt(in.frobenius_squared), sv.resolution});
  }
  const auto above =
      static_cast<uint64_t>(std::count_if(s.begin(), s.end(), [&](double v) { return v > m.tolerance; }));
  if (complete || above < s.size())
    m.actual_rank = above;
  else
    m.actual_rank_lower_bound = s.size();

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
  if (!complete) return m;
  if (sum > 0) {
    double h = 0;
    for (double v : s)
      if (v > 0) h -= (v / sum) * std::log(v / sum);
    m.effective_rank = std::exp(h);
  }
  // A matrix below full numerical rank has an infinite condition number: its σ_min is rounding noise.
  if (m.actual_rank == m.design_rank && s.back() > 0) m.condition_number = s.front() / s.back();
  std::vector<double> eigenvalues;
  eigenvalues.reserve(s.size());
  for (double v : s)
    if (v > sv.resolution) eigenvalues.push_back(v * v);
  m.alpha = fit_power_law(std::move(eigenvalues));
  return m;
}

}  // namespace ma
