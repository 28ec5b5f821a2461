#include "analysis/spectrum/power_law_fit.h"

#include <algorithm>
#include <cmath>

namespace ma {

std::optional<PowerLawFit> fit_power_law(std::vector<double> x) {
  std::erase_if(x, [](double v) { return !(v > 0) || !std::isfinite(v); });
  std::sort(x.begin(), x.end());
  const size_t n_all = x.size();
  if (n_all < 3) return std::nullopt;
  // Suffix sums of ln x: Σ_{j>=i} ln x_j, so each candidate's α costs O(1); its D costs O(tail).
  std::vector<double> log_x(n_all), log_suffix(n_all + 1, 0.0);
  for (size_t i = n_all; i-- > 0;) {
    log_x[i] = std::log(x[i]);
    log_suffix[i] = log_suffix[i + 1] + log_x[i];
  }
  std::optional<PowerLawFit> best;
  for (size_t i = 0; i + 1 < n_all; ++i) {
    if (i > 0 && x[i] == x[i - 1]) continue;  // one candidate per distinct value, its first occurrence
    const double xmin = x[i];
    if (xmin == x.back()) break;  // the largest value cannot start a tail
    const size_t n = n_all - i;
    const double sum_log = log_suffix[i] - static_cast<double>(n) * log_x[i];
    if (!(sum_log > 0)) continue;
    const double alpha = 1 + static_cast<double>(n) / sum_log;
    // D as powerlaw computes it: at each distinct tail value x, the empirical CDF is the fraction of the tail
    // strictly below x (numpy.searchsorted(side='left') / n), against the fitted CDF at x.
    double d = 0;
    for (size_t j = 0; j < n; ++j) {
      if (j > 0 && x[i + j] == x[i + j - 1]) continue;
      const double fitted = 1 - std::exp((1 - alpha) * (log_x[i + j] - log_x[i]));
      d = std::max(d, std::fabs(static_cast<double>(j) / static_cast<double>(n) - fitted));
    }
    if (!best || d < best->ks_distance) best = PowerLawFit{alpha, xmin, d, n};
  }
  return best;
}

}  // namespace ma
