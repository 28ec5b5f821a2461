#include "analysis/spectrum/singular_values.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "analysis/lapack.h"

namespace ma {
namespace {

// A row-major rows x cols matrix is the column-major cols x rows matrix Wᵀ, whose singular values are W's.
SingularValues full_svd(std::vector<float>& w, uint64_t rows, uint64_t cols) {
  std::vector<float> s(std::min(rows, cols));
  lapack::singular_values(static_cast<int64_t>(cols), static_cast<int64_t>(rows), w.data(), s.data());
  SingularValues out;
  out.values.assign(s.begin(), s.end());
  return out;
}

SingularValues gram_eigenvalues(std::vector<float>& w, uint64_t rows, uint64_t cols) {
  // A = Wᵀ is cols x rows (column-major, lda = cols). rows <= cols: W Wᵀ = AᵀA (rows x rows); else
  // WᵀW = A Aᵀ (cols x cols).
  const uint64_t n = std::min(rows, cols), k = std::max(rows, cols);
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
    out.values.push_back(std::sqrt(std::max(0.0, double(*it))));
  const double eps = std::numeric_limits<float>::epsilon();
  out.resolution = out.values.empty() ? 0 : std::sqrt(static_cast<double>(n) * eps) * out.values.front();
  return out;
}

SingularValues randomized(std::vector<float>& w, uint64_t rows, uint64_t cols, const RandomizedOptions& o) {
  // A = Wᵀ: p x q column-major (p = cols, q = rows). The sketch has l = K + oversample columns.
  const int64_t p = static_cast<int64_t>(cols), q = static_cast<int64_t>(rows);
  const int64_t smaller = std::min(p, q);
  const int64_t l = std::min<int64_t>(smaller, int64_t{o.k} + o.oversample);
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
  out.values.assign(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(keep));
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
