#include "analysis/spectrum/singular_values.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "analysis/lapack.h"

namespace ma {
namespace {

// Divides `w` by the power of two 2^e nearest above max |w| (so that max |w| is in [0.5, 1)) and returns
// 2^e, what its σ are multiplied by afterwards. Exact (a power of two moves exponents only, and no element of
// a scaled-down matrix falls far enough below its largest to matter next to σ_max's rounding). Without it
// the Gram matrix W Wᵀ overflows float32 once σ_max passes ~1.8e19 (ssyevd then fails) and underflows to 0
// below ~1e-19 (a full-rank matrix read as rank 0); the randomized sketch overflows likewise, and sgesdd's
// σ_max itself can exceed float32's range (‖W‖₂ up to max |w|·sqrt(m·n)). 1 for an all-zero matrix.
double normalise_scale(std::vector<float>& w) {
  float largest = 0;
  for (float x : w) largest = std::max(largest, std::fabs(x));
  if (!(largest > 0) || !std::isfinite(largest)) return 1;
  int e = 0;
  std::frexp(largest, &e);  // largest = f·2^e, f in [0.5, 1)
  const float down = std::ldexp(1.0f, -e);
  if (down == 1.0f) return 1;
  if (std::isfinite(down) && down > 0) {
    for (float& x : w) x *= down;
  } else {  // 2^-e beyond float's range (e near ±128): in two steps
    const float half = std::ldexp(1.0f, -e / 2), rest = std::ldexp(1.0f, -(e - e / 2));
    for (float& x : w) x = x * half * rest;
  }
  return std::ldexp(1.0, e);
}

// A row-major rows x cols matrix is the column-major cols x rows matrix Wᵀ, whose singular values are W's.
SingularValues full_svd(std::vector<float>& w, uint64_t rows, uint64_t cols) {
  const double scale = normalise_scale(w);
  std::vector<float> s(std::min(rows, cols));
  lapack::singular_values(static_cast<int64_t>(cols), static_cast<int64_t>(rows), w.data(), s.data());
  SingularValues out;
  out.values.reserve(s.size());
  for (float v : s) out.values.push_back(double(v) * scale);
  return out;
}

SingularValues gram_eigenvalues(std::vector<float>& w, uint64_t rows, uint64_t cols) {
  // A = Wᵀ is cols x rows (column-major, lda = cols). rows <= cols: W Wᵀ = AᵀA (rows x rows); else
  // WᵀW = A Aᵀ (cols x cols).
  const uint64_t n = std::min(rows, cols), k = std::max(rows, cols);
  const double scale = normalise_scale(w);  // entries of the Gram matrix at most k, whatever W's magnitude
  std::vector<float> g(n * n);
  lapack::gram(rows <= cols, static_cast<int64_t>(n), static_cast<int64_t>(k), w.data(),
               static_cast<int64_t>(cols), g.data());
  w.clear();
  w.shrink_to_fit();  // the matrix is no longer needed: keep the peak at one matrix plus its Gram
  std::vector<float> lambda(n);
  lapack::symmetric_eigenvalues(static_cast<int64_t>(n), g.data(), lambda.data());
  SingularValues out;
  out.values.reserve(n);
  for (auto it = lambda.rbegin(); it != lambda.rend(); ++it)
    out.values.push_back(std::sqrt(std::max(0.0, double(*it))) * scale);
  const double eps = std::numeric_limits<float>::epsilon();
  out.resolution = out.values.empty() ? 0 : std::sqrt(static_cast<double>(n) * eps) * out.values.front();
  return out;
}

SingularValues randomized(std::vector<float>& w, uint64_t rows, uint64_t cols, const RandomizedOptions& o) {
  // A = Wᵀ: p x q column-major (p = cols, q = rows). The sketch has l = K + oversample columns.
  const int64_t p = static_cast<int64_t>(cols), q = static_cast<int64_t>(rows);
  const int64_t smaller = std::min(p, q);
  const int64_t l = std::min<int64_t>(smaller, int64_t{o.k} + o.oversample);
  const double scale = normalise_scale(w);  // the products below stay within float32's range
  std::vector<float> omega(static_cast<size_t>(q * l));
  std::mt19937_64 rng(o.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (float& x : omega) x = normal(rng);
  std::vector<float> y(static_cast<size_t>(p * l)), z(static_cast<size_t>(q * l));
  lapack::multiply(false, false, p, l, q, w.data(), p, omega.data(), q, y.data(), p);  // Y = A Ω
  lapack::orthonormalize(p, l, y.data());
  for (uint32_t i = 0; i < o.power_iterations; ++i) {
    lapack::multiply(true, false, q, l, p, w.data(), p, y.data(), p, z.data(), q);  // Z = Aᵀ Q
    lapack::orthonormalize(q, l, z.data());
    lapack::multiply(false, false, p, l, q, w.data(), p, z.data(), q, y.data(), p);  // Y = A Z
    lapack::orthonormalize(p, l, y.data());
  }
  std::vector<float> b(static_cast<size_t>(l * q));  // B = Qᵀ A: l x q
  lapack::multiply(true, false, l, q, p, y.data(), p, w.data(), p, b.data(), l);
  std::vector<float> s(static_cast<size_t>(std::min(l, q)));
  lapack::singular_values(l, q, b.data(), s.data());
  SingularValues out;
  const size_t keep = std::min<size_t>(o.k, s.size());
  for (size_t i = 0; i < keep; ++i) out.values.push_back(double(s[i]) * scale);
  out.complete = keep >= static_cast<size_t>(smaller);
  const double over = static_cast<double>(l), span = static_cast<double>(smaller);
  out.error_factor = std::pow(1 + 11 * std::sqrt(over * span), 1.0 / (2.0 * o.power_iterations + 1));
  return out;
}

}  // namespace

SingularValues singular_values(std::vector<float>& w, uint64_t rows, uint64_t cols, SpectrumMethod method,
                               const RandomizedOptions& randomized_options) {
  if (rows == 0 || cols == 0) return {};
  switch (method) {
    case SpectrumMethod::Gram:
      return gram_eigenvalues(w, rows, cols);
    case SpectrumMethod::Randomized:
      if (randomized_options.k < std::min(rows, cols)) return randomized(w, rows, cols, randomized_options);
      return full_svd(w, rows, cols);
    case SpectrumMethod::Svd:
      break;
  }
  return full_svd(w, rows, cols);
}

}  // namespace ma
