// The figures `spectrum` derives from singular values (analysis/spectrum/spectral_metrics.h) and the
// power-law fit (power_law_fit.h), on spectra worked out by hand: no LAPACK needed.
#include "analysis/spectrum/spectral_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/spectrum/power_law_fit.h"

namespace ma {
namespace {

MetricInputs inputs(uint64_t rows, uint64_t cols, double frobenius_squared) {
  MetricInputs in;
  in.rows = rows;
  in.cols = cols;
  in.frobenius_squared = frobenius_squared;
  return in;
}

// σ = 4, 3, 2, 1, 0: σ² = 16, 9, 4, 1, 0 (total 30), cumulative 0.533, 0.833, 0.967.
TEST(SpectralMetrics, HandWorkedSpectrum) {
  SingularValues sv;
  sv.values = {4, 3, 2, 1, 0};
  const SpectralMetrics m = spectral_metrics(sv, inputs(5, 8, 30));
  EXPECT_EQ(m.design_rank, 5u);
  EXPECT_EQ(m.actual_rank, 4u) << "σ = 0 is below any tolerance";
  EXPECT_DOUBLE_EQ(m.tolerance, 4 * 8 * 1.1920928955078125e-07);
  EXPECT_EQ(m.rank_90, 3u);
  EXPECT_DOUBLE_EQ(m.stable_rank, 30.0 / 16);
  const double p[] = {0.4, 0.3, 0.2, 0.1};
  double h = 0;
  for (double x : p) h -= x * std::log(x);
  EXPECT_NEAR(*m.effective_rank, std::exp(h), 1e-12);
  EXPECT_DOUBLE_EQ(m.spectral_norm, 4);
  EXPECT_FALSE(m.condition_number) << "rank-deficient: σ_min is 0";
}

TEST(SpectralMetrics, EnergyTargetAndToleranceAreTheCallers) {
  SingularValues sv;
  sv.values = {4, 3, 2, 1};
  MetricInputs in = inputs(4, 4, 30);
  in.energy = 0.5;
  in.tolerance = 2.5;
  const SpectralMetrics m = spectral_metrics(sv, in);
  EXPECT_EQ(m.energy_rank, 1u) << "16/30 >= 0.5";
  EXPECT_EQ(m.rank_90, 3u) << "the 90% rank is always there";
  EXPECT_EQ(m.actual_rank, 2u) << "σ > 2.5";
  EXPECT_FALSE(m.condition_number) << "below full numerical rank";
}

// A narrower stored float leaves actual_rank numpy's matrix_rank of the float32 values (σ_max·max(m, n)·ε_f32
// = 10·3·ε = 3.6e-6: rank 3), and adds the storage rank: σ above u/(1-u)·‖|W|‖₂ + ‖Δ‖_F, as far as rounding
// to BF16 (u = 2^-8) can move a σ of a matrix whose |W| has norm 12, with 0.001 from values stored as
// subnormals: 12/255 + 0.001 = 0.048, above σ = 0.01.
TEST(SpectralMetrics, StoredPrecisionSetsTheStorageRankNotTheRank) {
  SingularValues sv;
  sv.values = {10, 1, 0.01};
  MetricInputs in = inputs(3, 3, 101.0001);
  const double u = std::ldexp(1.0, -8);  // BF16
  in.storage_roundoff = u;
  in.abs_spectral_norm = 12;
  in.storage_floor = 0.001;
  const SpectralMetrics m = spectral_metrics(sv, in);
  EXPECT_DOUBLE_EQ(m.tolerance, 10 * 3 * 1.1920928955078125e-07) << "numpy's rule whatever the stored dtype";
  EXPECT_EQ(m.actual_rank, 3u) << "0.01 is far above float32's tolerance";
  EXPECT_FALSE(m.actual_rank_lower_bound);
  EXPECT_TRUE(m.condition_number) << "full numerical rank by numpy's rule";
  ASSERT_TRUE(m.storage_tolerance);
  EXPECT_DOUBLE_EQ(*m.storage_tolerance, u / (1 - u) * 12 + 0.001);
  EXPECT_EQ(m.storage_rank, 2u) << "0.01 is within BF16's rounding of this matrix";
  EXPECT_FALSE(m.storage_rank_lower_bound);

  // --rank-tol moves actual_rank's tolerance only.
  MetricInputs given = in;
  given.tolerance = 5.0;
  const SpectralMetrics g = spectral_metrics(sv, given);
  EXPECT_EQ(g.actual_rank, 1u);
  EXPECT_DOUBLE_EQ(*g.storage_tolerance, *m.storage_tolerance);
  EXPECT_EQ(g.storage_rank, 2u);

  // Never below numpy's tolerance: F16 (u = 2^-11) in a 3 x 8192 matrix rounds σ by at most
  // 10·2^-11/(1-2^-11) = 0.0049, under 10·8192·ε = 0.0098, which both ranks then use.
  SingularValues wide_sv;
  wide_sv.values = {10, 1, 0.005};
  MetricInputs wide = inputs(3, 8192, 101.000025);
  wide.storage_roundoff = std::ldexp(1.0, -11);
  wide.abs_spectral_norm = 10;
  const SpectralMetrics w = spectral_metrics(wide_sv, wide);
  EXPECT_DOUBLE_EQ(w.tolerance, 10 * 8192 * 1.1920928955078125e-07);
  ASSERT_TRUE(w.storage_tolerance);
  EXPECT_DOUBLE_EQ(*w.storage_tolerance, w.tolerance);
  EXPECT_EQ(w.actual_rank, 2u);
  EXPECT_EQ(w.storage_rank, 2u);

  // float32 and wider (no storage roundoff): no storage rank at all.
  MetricInputs f32 = inputs(3, 3, 101.0001);
  const SpectralMetrics full = spectral_metrics(sv, f32);
  EXPECT_EQ(full.actual_rank, 3u);
  EXPECT_FALSE(full.storage_tolerance);
  EXPECT_FALSE(full.storage_rank);
  EXPECT_FALSE(full.storage_rank_lower_bound);
}

// The top K only: what the missing values could change is unset, with a bound where one follows.
TEST(SpectralMetrics, TruncatedSpectrumGivesBounds) {
  SingularValues sv;
  sv.values = {4, 3};
  sv.complete = false;
  const SpectralMetrics m = spectral_metrics(sv, inputs(5, 8, 30));
  EXPECT_FALSE(m.actual_rank);
  EXPECT_EQ(m.actual_rank_lower_bound, 2u);
  EXPECT_FALSE(m.rank_90) << "25 of 30 is short of 90%";
  EXPECT_EQ(m.rank_90_lower_bound, 2u);
  EXPECT_DOUBLE_EQ(m.stable_rank, 30.0 / 16) << "exact: ‖W‖_F is known";
  EXPECT_FALSE(m.effective_rank);
  EXPECT_FALSE(m.condition_number);
  EXPECT_FALSE(m.alpha);
  // Reached inside K: exact.
  const SpectralMetrics reached = spectral_metrics(sv, inputs(5, 8, 26));
  EXPECT_EQ(reached.rank_90, 2u) << "25/26 >= 0.9";
}

// Exact quantiles of a Pareto law with α = 3 (density ∝ x^-3): the fit finds α near 3, whatever the scale.
TEST(PowerLawFit, RecoversTheExponentOfAParetoTail) {
  std::vector<double> x;
  const int n = 4000;
  for (int i = 0; i < n; ++i) x.push_back(std::pow(1 - (i + 0.5) / n, -1.0 / (3 - 1)));
  const auto fit = fit_power_law(x);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->alpha, 3.0, 0.05);
  EXPECT_LT(fit->ks_distance, 0.02);
  for (double& v : x) v *= 1e-6;
  const auto scaled = fit_power_law(x);
  ASSERT_TRUE(scaled);
  EXPECT_NEAR(scaled->alpha, fit->alpha, 1e-9) << "α is scale-free";
  EXPECT_EQ(scaled->tail, fit->tail);
}

TEST(PowerLawFit, TooFewValuesGiveNoFit) {
  EXPECT_FALSE(fit_power_law({}));
  EXPECT_FALSE(fit_power_law({1, 2}));
  EXPECT_FALSE(fit_power_law({0, -1, 1, 2})) << "zeros and negatives (noise) are left out";
  EXPECT_FALSE(fit_power_law({2, 2, 2, 2})) << "one distinct value";
}

}  // namespace
}  // namespace ma
