// What a matrix's singular values say about it (issue: seed 004's rank questions, WeightWatcher's α):
//   actual_rank       σ_i > tolerance. Default tolerance: numpy.linalg.matrix_rank's σ_max·max(m, n)·ε with
//                     ε of float32 (the dtype the SVD runs in), raised for matrices stored in fewer bits to
//                     u·‖W‖_F, u the stored dtype's unit roundoff: rounding every element to that dtype moves
//                     each σ by at most ‖E‖₂ <= ‖E‖_F <= u·‖W‖_F (Weyl), so σ below it can be rounding alone
//                     — numpy's rule on a bf16 matrix would call every matrix full-rank. `--rank-tol`
//                     overrides.
//   energy rank       searchsorted(cumsum(σ²)/Σσ², energy) + 1: always at 0.9 (seed 004's
//   svd_90_percent_rank),
//                     and at --energy when another target is asked.
//   stable rank       ‖W‖²_F / σ²_max;  effective rank  exp(H(p)), p_i = σ_i / Σσ (Roy & Vetterli 2007).
//   spectral norm σ_max, condition number σ_max / σ_min (full numerical rank only: below it σ_min is noise
//   and the true figure infinite), and α of the eigenvalues σ² (power_law_fit.h).
// From a truncated spectrum (the top K) a figure the missing values could change is left unset, with a lower
// bound where one follows: rank >= K when σ_K is above the tolerance (a sketch's σ_i never exceed the true
// ones, so the true σ_K is above it too); the energy rank ">= K" when the top K of the sketch hold less than
// the target (the total energy is ‖W‖²_F, exact).
#pragma once
#include <cstdint>
#include <optional>

#include "analysis/spectrum/power_law_fit.h"
#include "analysis/spectrum/singular_values.h"

namespace ma {

struct SpectralMetrics {
  uint64_t design_rank = 0;  // min(rows, cols)
  double tolerance = 0;      // the rank's σ threshold
  std::optional<uint64_t> actual_rank, actual_rank_lower_bound;
  std::optional<uint64_t> rank_90, rank_90_lower_bound;          // energy 0.9
  std::optional<uint64_t> energy_rank, energy_rank_lower_bound;  // energy --energy
  double stable_rank = 0;
  std::optional<double> effective_rank;
  double spectral_norm = 0;
  std::optional<double> condition_number;  // unset below full numerical rank or for a truncated spectrum
  std::optional<PowerLawFit> alpha;        // unset for a truncated spectrum or too few values
};

struct MetricInputs {
  uint64_t rows = 0, cols = 0;
  double frobenius_squared = 0;  // ‖W‖²_F, summed from the elements (exact whatever the method)
  double storage_roundoff = 0;   // unit roundoff of the stored dtype; 0 when float32 or wider
  double energy = 0.9;
  std::optional<double> tolerance;  // --rank-tol
};

SpectralMetrics spectral_metrics(const SingularValues& sv, const MetricInputs& in);

}  // namespace ma
