// α is fitted as WeightWatcher fits it: `powerlaw.Fit(evals[evals > EVALS_THRESH])`, evals = σ² of W and
// EVALS_THRESH = 1e-5 (weightwatcher/constants.py), and only to eigenvalues whose σ the rank counts (below
// the rank tolerance our float32 σ are rounding noise). A rank-8 256 x 256 matrix (a merged LoRA delta)
// fitted with its 248 noise σ got α = 1.2 from xmin 1e-16, where WeightWatcher's rule gives 5.9 from its 8
// real eigenvalues; with too few eigenvalues left α is unset, and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/spectrum/spectral_metrics.h"

namespace ma {
namespace {

// The powerlaw package's continuous fit, written out as its documentation states it: each distinct value
// but the largest as xmin, α = 1 + n / Σ ln(x / xmin) over the n values >= xmin, D = max over the tail's
// distinct values of |(values below it) / n − (1 − (x / xmin)^(1 − α))|, the smallest D wins.
struct AlphaThresholdFit {
  double alpha = 0, xmin = 0;
  uint64_t tail = 0;
};
std::optional<AlphaThresholdFit> alpha_threshold_reference(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  if (x.size() < 3) return std::nullopt;
  std::optional<AlphaThresholdFit> best;
  double best_d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if ((i > 0 && x[i] == x[i - 1]) || x[i] == x.back()) continue;
    const size_t n = x.size() - i;
    double sum_log = 0;
    for (size_t j = i; j < x.size(); ++j) sum_log += std::log(x[j] / x[i]);
    const double alpha = 1 + static_cast<double>(n) / sum_log;
    double d = 0;
    for (size_t j = i; j < x.size(); ++j) {
      if (j > i && x[j] == x[j - 1]) continue;
      const double below = static_cast<double>(j - i) / static_cast<double>(n);
      d = std::max(d, std::fabs(below - (1 - std::pow(x[j] / x[i], 1 - alpha))));
    }
    if (!best || d < best_d) {
      best = AlphaThresholdFit{alpha, x[i], n};
      best_d = d;
    }
  }
  return best;
}

MetricInputs alpha_threshold_inputs(uint64_t rows, uint64_t cols, const std::vector<double>& s) {
  MetricInputs in;
  in.rows = rows;
  in.cols = cols;
  for (double v : s) in.frobenius_squared += v * v;
  return in;
}

// Eight σ of a low-rank matrix, then 248 at float32's rounding level (1e-7 .. 3e-7 of σ_max = 3).
TEST(SpectrumAlphaThreshold, RoundingNoiseIsNotFitted) {
  SingularValues sv;
  sv.values = {3.0, 2.6, 2.4, 2.1, 1.9, 1.7, 1.2, 0.9};
  for (int i = 0; i < 248; ++i) sv.values.push_back(3.0 * (3e-7 - 8e-10 * i));
  const SpectralMetrics m = spectral_metrics(sv, alpha_threshold_inputs(256, 256, sv.values));
  EXPECT_EQ(m.actual_rank, 8u);
  ASSERT_TRUE(m.alpha) << m.alpha_unset;
  EXPECT_TRUE(m.alpha_unset.empty());
  EXPECT_EQ(m.alpha_eigenvalues, 8u);
  std::vector<double> eigenvalues;
  for (int i = 0; i < 8; ++i) eigenvalues.push_back(sv.values[i] * sv.values[i]);
  const auto want = alpha_threshold_reference(eigenvalues);
  ASSERT_TRUE(want);
  EXPECT_NEAR(m.alpha->alpha, want->alpha, 1e-9 * want->alpha);
  EXPECT_DOUBLE_EQ(m.alpha->xmin, want->xmin);
  EXPECT_EQ(m.alpha->tail, want->tail);
  EXPECT_GT(m.alpha->xmin, 1e-5) << "not a noise eigenvalue (the old fit chose 1e-13)";
}

// WeightWatcher's threshold is on σ² itself (1e-5), not relative: σ = 0.004, 0.003, 0.002 (σ² = 1.6e-5,
// 9e-6, 4e-6) leave one eigenvalue, too few to fit.
TEST(SpectrumAlphaThreshold, EigenvaluesAtOrBelowEvalsThreshAreLeftOut) {
  SingularValues sv;
  sv.values = {0.004, 0.003, 0.002};
  const SpectralMetrics m = spectral_metrics(sv, alpha_threshold_inputs(3, 3, sv.values));
  EXPECT_EQ(m.actual_rank, 3u) << "the rank does not use the threshold";
  EXPECT_FALSE(m.alpha);
  EXPECT_EQ(m.alpha_eigenvalues, 1u);
  EXPECT_NE(m.alpha_unset.find("too few eigenvalues"), std::string::npos) << m.alpha_unset;
  EXPECT_DOUBLE_EQ(kAlphaEigenvalueThreshold, 1e-5);
}

// Above 1e-5 but below the rank tolerance (σ_max·max(m, n)·ε = 1e4·100·1.19e-7 = 0.119): σ = 0.05 is noise
// of this matrix's float32 decomposition, left out like the rest of its kind.
TEST(SpectrumAlphaThreshold, SigmaBelowTheRankToleranceIsLeftOut) {
  SingularValues sv;
  sv.values = {1e4, 4e3, 2e3, 9e2, 0.05, 0.05, 0.04};
  const SpectralMetrics m = spectral_metrics(sv, alpha_threshold_inputs(7, 100, sv.values));
  EXPECT_EQ(m.actual_rank, 4u);
  ASSERT_TRUE(m.alpha);
  EXPECT_EQ(m.alpha_eigenvalues, 4u);
  const auto want = alpha_threshold_reference({1e8, 1.6e7, 4e6, 8.1e5});
  ASSERT_TRUE(want);
  EXPECT_NEAR(m.alpha->alpha, want->alpha, 1e-9 * want->alpha);
}

TEST(SpectrumAlphaThreshold, ATruncatedSpectrumSaysWhy) {
  SingularValues sv;
  sv.values = {4, 3};
  sv.complete = false;
  const SpectralMetrics m = spectral_metrics(sv, alpha_threshold_inputs(5, 8, sv.values));
  EXPECT_FALSE(m.alpha);
  EXPECT_FALSE(m.alpha_unset.empty());
}

}  // namespace
}  // namespace ma
