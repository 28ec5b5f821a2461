// What a matrix's singular values say about it (issue: seed 004's rank questions, WeightWatcher's α):
//   actual_rank       σ_i > tolerance: numpy.linalg.matrix_rank on the values as stored (upcast to float32,
//                     the dtype the SVD runs in), whatever the stored dtype: σ_max·max(m, n)·ε with ε of
//                     float32, or the Gram method's resolution where that is larger. `--rank-tol` overrides.
//   storage_rank      (floats narrower than float32 only) σ_i above a bound on ‖E‖₂, E the change rounding to
//                     the stored dtype made. Elementwise |E| <= u/(1-u)·|W|, u the unit roundoff (values
//                     below the smallest normal add Δ, half the subnormal spacing times their scale); so
//                       ‖E‖₂ <= ‖ |E| ‖₂ <= u/(1-u)·‖ |W| ‖₂ + ‖Δ‖_F,
//                     ‖ |W| ‖₂ bounded from above (Collatz–Wielandt: abs_spectral_norm_bound). A σ above it
//                     survives any such rounding (Weyl): every matrix that rounds to the stored one has at
//                     least storage_rank non-zero σ — a floor under the rank of the weights before they were
//                     rounded, far below actual_rank for coarse types (FP8's u is 1/16).
//   energy rank       searchsorted(cumsum(σ²)/Σσ², energy) + 1: always at 0.9 (seed 004's
//                     svd_90_percent_rank), and at --energy when another target is asked.
//   stable rank       ‖W‖²_F / σ²_max;  effective rank  exp(H(p)), p_i = σ_i / Σσ (Roy & Vetterli 2007).
//   spectral norm σ_max, condition number σ_max / σ_min (full numerical rank only: below it σ_min is noise
//   and the true figure infinite), and α of the eigenvalues σ² (power_law_fit.h) as WeightWatcher fits
//   them: only eigenvalues above its EVALS_THRESH, 1e-5 (`powerlaw.Fit(evals[evals > 1e-5])`, evals = σ²
//   of W unnormalised), and only those whose σ the rank counts (σ > tolerance): below it our float32 σ are
//   rounding noise, which WeightWatcher's float64 SVD would resolve, and a rank-deficient matrix (a merged
//   LoRA delta) fitted with its noise got α ≈ 1.2 from xmin 1e-16. Unset, with the reason, when fewer than
//   3 eigenvalues (or only equal ones) remain.
// From a truncated spectrum (the top K) a figure the missing values could change is left unset, with a lower
// bound where one follows: rank >= K when σ_K is above the tolerance (a sketch's σ_i never exceed the true
// ones, so the true σ_K is above it too); the energy rank ">= K" when the top K of the sketch hold less than
// the target (the total energy is ‖W‖²_F, exact).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "analysis/spectrum/power_law_fit.h"
#include "analysis/spectrum/singular_values.h"

namespace ma {

// WeightWatcher's EVALS_THRESH (weightwatcher/constants.py): eigenvalues σ² at or below it are not fitted.
inline constexpr double kAlphaEigenvalueThreshold = 1e-5;
// The fewest eigenvalues a fit needs, not all equal (fit_power_law's minimum).
inline constexpr uint64_t kAlphaMinEigenvalues = 3;

struct SpectralMetrics {
  uint64_t design_rank = 0;  // min(rows, cols)
  double tolerance = 0;      // actual_rank's σ threshold
  std::optional<uint64_t> actual_rank, actual_rank_lower_bound;
  // Set for a float narrower than float32 only: the σ threshold rounding to it cannot reach, and the σ above.
  std::optional<double> storage_tolerance;
  std::optional<uint64_t> storage_rank, storage_rank_lower_bound;
  std::optional<uint64_t> rank_90, rank_90_lower_bound;          // energy 0.9
  std::optional<uint64_t> energy_rank, energy_rank_lower_bound;  // energy --energy
  double stable_rank = 0;
  std::optional<double> effective_rank;
  double spectral_norm = 0;
  std::optional<double> condition_number;  // unset below full numerical rank or for a truncated spectrum
  std::optional<PowerLawFit> alpha;        // unset for a truncated spectrum or too few values
  uint64_t alpha_eigenvalues = 0;          // eigenvalues offered to the fit (above both thresholds)
  std::string alpha_unset;                 // why α is unset; empty when it is set
};

struct MetricInputs {
  uint64_t rows = 0, cols = 0;
  double frobenius_squared = 0;  // ‖W‖²_F, summed from the elements (exact whatever the method)
  // A float narrower than float32: its unit roundoff u (0 otherwise: no storage rank), an upper bound on
  // ‖ |W| ‖₂ (abs_spectral_norm_bound) and ‖Δ‖_F, what values below the smallest normal add.
  double storage_roundoff = 0;
  double abs_spectral_norm = 0;
  double storage_floor = 0;
  double energy = 0.9;
  std::optional<double> tolerance;  // --rank-tol
};

SpectralMetrics spectral_metrics(const SingularValues& sv, const MetricInputs& in);

// An upper bound on the spectral norm of |W| (the row-major rows x cols matrix `w`, elementwise absolute
// values), within 0.1 % of it for the dense matrices of a model: power iteration on |W|ᵀ|W|, each step giving
// the Collatz–Wielandt bound ρ(M) <= max_j (Mx)_j / x_j (M >= 0, x > 0). One pass over `w` per step, at
// most 50 steps. 0 for an empty or all-zero matrix.
double abs_spectral_norm_bound(const float* w, uint64_t rows, uint64_t cols);

}  // namespace ma
