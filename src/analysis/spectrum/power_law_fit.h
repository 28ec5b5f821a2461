// WeightWatcher's heavy-tail metric: the power-law exponent α of a matrix's empirical spectral density (the
// eigenvalues λ = σ² of WᵀW), fitted as the `powerlaw` package fits it (Alstott et al. 2014, after Clauset,
// Shalizi & Newman 2009): for each candidate xmin among the distinct eigenvalues (the largest excluded), the
// continuous maximum-likelihood α = 1 + n / Σ ln(λ_i / xmin) over the n eigenvalues λ_i >= xmin, and the
// Kolmogorov–Smirnov distance D between their empirical CDF and the fitted one, 1 − (λ / xmin)^(1 − α); the
// fit with the smallest D wins. Unbounded above (powerlaw's xmax = None). α is invariant to scaling W, so no
// normalisation is needed. O(n²) in the number of eigenvalues: 16 M steps for a 4096-wide matrix.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace ma {

struct PowerLawFit {
  double alpha = 0;
  double xmin = 0;         // the eigenvalue the tail starts at
  double ks_distance = 0;  // D of the chosen fit
  uint64_t tail = 0;       // eigenvalues >= xmin
};

// `eigenvalues` in any order; zeros and negatives (numerical noise) are left out. nullopt with fewer than 3
// positive distinct values.
std::optional<PowerLawFit> fit_power_law(std::vector<double> eigenvalues);

}  // namespace ma
