// Singular values of matrices at the ends of float32's range, by every method: the matrix is divided by a
// power of two near max |w| before the decomposition and σ multiplied back (in double) after. Unscaled, the
// Gram matrix of a matrix with σ_max above ~1.8e19 overflowed (ssyevd failed, and the whole run with exit 3),
// that of a 1e-25 matrix underflowed to 0 (rank 0 for a full-rank matrix), and the randomized sketch of a
// 1e37 matrix overflowed (sgesdd rejected it, exit 1).
//
// The matrices are W = c · H · diag(d), H the 64 x 64 Sylvester-Hadamard matrix (entries ±1, HᵀH = 64 I) and
// c a power of two, so every entry is exact in float32 and the singular values are known: WᵀW =
// 64 c² diag(d²), σ_j = 8 c |d_j|.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "analysis/model_weight_stats.h"
#include "analysis/spectrum/model_spectrum.h"
#include "analysis/spectrum/singular_values.h"
#include "core/error.h"
#include "lapack_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kScalingN = 64;

// Row-major c · H · diag(d).
std::vector<float> scaling_hadamard(double c, const std::vector<double>& d) {
  std::vector<float> w(kScalingN * kScalingN);
  for (uint64_t i = 0; i < kScalingN; ++i)
    for (uint64_t j = 0; j < kScalingN; ++j) {
      const double h = std::popcount(i & j) % 2 ? -1.0 : 1.0;
      w[i * kScalingN + j] = static_cast<float>(c * h * d[j]);
    }
  return w;
}

// 8 c |d_j|, descending.
std::vector<double> scaling_expected(double c, std::vector<double> d) {
  for (double& v : d) v = 8 * c * std::fabs(v);
  std::sort(d.begin(), d.end(), std::greater<>());
  return d;
}

// d_j = 1 + j/64: 64 distinct σ from 8c to ~16c.
std::vector<double> scaling_even_spread() {
  std::vector<double> d(kScalingN);
  for (uint64_t j = 0; j < kScalingN; ++j) d[j] = 1 + static_cast<double>(j) / 64;
  return d;
}

// 8, 7, …, 1, then 1/64: a top 8 far above the rest, which a sketch of 18 columns finds.
std::vector<double> scaling_top_eight() {
  std::vector<double> d(kScalingN, 1.0 / 64);
  for (uint64_t j = 0; j < 8; ++j) d[j] = 8.0 - static_cast<double>(j);
  return d;
}

void scaling_expect_sigma(const SingularValues& got, const std::vector<double>& want, size_t count,
                          double relative) {
  ASSERT_GE(got.values.size(), count);
  for (size_t i = 0; i < count; ++i) {
    EXPECT_TRUE(std::isfinite(got.values[i])) << "σ_" << i;
    EXPECT_NEAR(got.values[i], want[i], relative * want[0]) << "σ_" << i;
  }
}

TEST(SpectrumScaling, EveryMethodAtTheEndsOfFloat32sRange) {
  SKIP_WITHOUT_LAPACK();
  // σ_max 2^63·8·2 ≈ 1.5e20: the Gram matrix's entries reach 2^134, past float32's 2^128.
  // 2^-83 ≈ 1e-25: the Gram matrix's entries, ~2^-160, are below float32's smallest subnormal.
  for (const double c : {std::ldexp(1.0, 63), std::ldexp(1.0, -83)}) {
    SCOPED_TRACE(c);
    const std::vector<double> d = scaling_even_spread(), want = scaling_expected(c, d);
    for (const SpectrumMethod method : {SpectrumMethod::Svd, SpectrumMethod::Gram}) {
      SCOPED_TRACE(static_cast<int>(method));
      std::vector<float> w = scaling_hadamard(c, d);
      const SingularValues s = singular_values(w, kScalingN, kScalingN, method);
      ASSERT_EQ(s.values.size(), kScalingN);
      // The Gram method's λ carry n·ε·σ²_max: σ to about 1e-5 of σ_max.
      scaling_expect_sigma(s, want, kScalingN, method == SpectrumMethod::Gram ? 1e-4 : 1e-5);
    }
  }
  // c = 2^124: entries up to 2^127, σ_max = 2^130, beyond float32 itself; the sketch A·Ω overflowed.
  const double c = std::ldexp(1.0, 124);
  const std::vector<double> d = scaling_top_eight(), want = scaling_expected(c, d);
  RandomizedOptions top;
  top.k = 8;
  std::vector<float> w = scaling_hadamard(c, d);
  const SingularValues sketch = singular_values(w, kScalingN, kScalingN, SpectrumMethod::Randomized, top);
  EXPECT_FALSE(sketch.complete);
  ASSERT_EQ(sketch.values.size(), 8u);
  scaling_expect_sigma(sketch, want, 8, 1e-4);
  w = scaling_hadamard(c, d);
  scaling_expect_sigma(singular_values(w, kScalingN, kScalingN, SpectrumMethod::Svd), want, kScalingN, 1e-5);
}

// Through the model: a 1e19-scale matrix beside an ordinary one, by the Gram method, gives both (it stopped
// the whole run), and the 1e-25-scale one is full rank (it was rank 0).
TEST(SpectrumScaling, OneExtremeMatrixNoLongerStopsTheRun) {
  SKIP_WITHOUT_LAPACK();
  test::TempDir dir;
  const fs::path file = dir / "w.bin";
  const std::vector<double> d = scaling_even_spread();
  const double scales[] = {0.02, std::ldexp(1.0, 63), std::ldexp(1.0, -83)};
  const char* names[] = {"model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight",
                         "model.layers.0.self_attn.v_proj.weight"};
  PlannedScan plan;
  {
    std::ofstream out(file, std::ios::binary);
    for (size_t t = 0; t < 3; ++t) {
      const std::vector<float> w = scaling_hadamard(scales[t], d);
      out.write(reinterpret_cast<const char*>(w.data()), static_cast<std::streamsize>(w.size() * 4));
      plan.items.push_back({names[t],
                            file,
                            t * kScalingN * kScalingN * 4,
                            kScalingN * kScalingN * 4,
                            DType::F32,
                            Shape{kScalingN, kScalingN},
                            kScalingN * kScalingN,
                            {}});
      plan.trainable.push_back(true);
      plan.counted_parameters.push_back(kScalingN * kScalingN);
      plan.counted_bytes.push_back(kScalingN * kScalingN * 4);
    }
  }
  SpectrumOptions o;
  o.method = SpectrumMethod::Gram;
  const ModelSpectrum s = compute_model_spectrum(plan, o);
  EXPECT_TRUE(s.skipped.empty());
  ASSERT_EQ(s.matrices.size(), 3u);
  for (size_t t = 0; t < 3; ++t) {
    SCOPED_TRACE(names[t]);
    const std::vector<double> want = scaling_expected(scales[t], d);
    EXPECT_NEAR(s.matrices[t].metrics.spectral_norm, want[0], 1e-5 * want[0]);
    // Every σ is at least half of σ_max, far above the Gram resolution (sqrt(64·ε) ≈ 0.3 % of σ_max).
    EXPECT_EQ(s.matrices[t].metrics.actual_rank, kScalingN);
  }
}

}  // namespace
}  // namespace ma
