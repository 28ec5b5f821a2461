// The singular values of one weight matrix, three ways:
//   Svd        LAPACK's sgesdd on the matrix itself: every σ, to float32's backward error (σ_i within a small
//              multiple of ε·σ_max of the exact value).
//   Gram       the eigenvalues of the smaller Gram matrix W Wᵀ or WᵀW (ssyrk + ssyevd), σ = sqrt(λ): about 3x
//              faster, but λ carries an error of order n·ε·σ_max², so a σ below `resolution` =
//              sqrt(n·ε)·σ_max is not resolved (it reads as noise around 0).
//   Randomized the top K by a randomized range finder (Halko, Martinsson & Tropp 2011, §4.4 with q power
//              iterations and p oversampling columns): σ_i of the sketch never exceed the true σ_i, and with
//              probability at least 1 − 6·p^−p the sketch's residual is at most
//              (1 + 11·sqrt((K + p)·min(m, n)))^(1/(2q+1)) · σ_(K+1) (their eq. 1.9 carried through the
//              power scheme by their Theorem 9.2): `error_factor`.
#pragma once
#include <cstdint>
#include <vector>

namespace ma {

enum class SpectrumMethod : uint8_t { Svd, Gram, Randomized };

struct RandomizedOptions {
  uint32_t k = 128;          // singular values wanted
  uint32_t oversample = 10;  // p
  uint32_t power_iterations = 2;
  uint64_t seed = 0;
};

struct SingularValues {
  std::vector<double> values;  // descending; all min(rows, cols), or the top K
  bool complete = true;        // false for Randomized: `values` is the top K only
  double resolution = 0;       // Gram: the smallest σ resolved; else 0
  double error_factor = 0;     // Randomized: the bound's factor on σ_(K+1); else 0
};

// `w`: the row-major rows x cols matrix (destroyed). Throws Error(Unsupported) without LAPACK.
SingularValues singular_values(std::vector<float>& w, uint64_t rows, uint64_t cols, SpectrumMethod method,
                               const RandomizedOptions& randomized = {});

}  // namespace ma
