// The silhouette's distances: ‖x‖² + ‖y‖² − 2 x·y in float32 put rows that are the same vector (an
// embedding's untrained tokens share one) about sqrt(ε_f32)·‖x‖ apart instead of 0, and moved the silhouette
// in its fourth digit (0.754393 where scikit-learn says 0.754523). The rows are upcast to float64, as
// scikit-learn upcasts float32 input, and rows holding the same values are exactly 0 apart. The reference
// here is the definition itself, every distance sqrt(Σ (x_t − y_t)²) summed directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/embedding/kmeans.h"
#include "core/error.h"
#include "lapack_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

// Rousseeuw's mean silhouette by its definition, distances from the differences in float64.
double silhouette_by_definition(const std::vector<float>& x, uint64_t d, const std::vector<uint32_t>& labels,
                                uint32_t k) {
  const uint64_t n = labels.size();
  std::vector<uint64_t> size(k, 0);
  for (uint32_t l : labels) ++size[l];
  double total = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (size[labels[i]] <= 1) continue;
    std::vector<double> sum(k, 0.0);
    for (uint64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      double s = 0;
      for (uint64_t t = 0; t < d; ++t) {
        const double diff = double(x[i * d + t]) - double(x[j * d + t]);
        s += diff * diff;
      }
      sum[labels[j]] += std::sqrt(s);
    }
    const double a = sum[labels[i]] / static_cast<double>(size[labels[i]] - 1);
    double b = std::numeric_limits<double>::infinity();
    for (uint32_t c = 0; c < k; ++c)
      if (c != labels[i] && size[c] > 0) b = std::min(b, sum[c] / static_cast<double>(size[c]));
    total += (b - a) / std::max(a, b);
  }
  return total / static_cast<double>(n);
}

// 60 rows, each one of 3 vectors of 16 values around a common offset of 4 (the offset makes the float32
// cancellation large next to the distances, as an embedding's shared mean does).
struct SilhouetteRepeatedRows {
  static constexpr uint64_t d = 16, n = 60;
  std::vector<float> x;
  std::vector<uint32_t> which;  // the vector each row copies
  SilhouetteRepeatedRows() {
    test::NormalRng rng(12);
    std::vector<float> base(3 * d);
    for (float& v : base) v = static_cast<float>(4 + rng());
    for (uint64_t i = 0; i < n; ++i) {
      which.push_back(static_cast<uint32_t>((i * 7 + i / 5) % 3));
      for (uint64_t t = 0; t < d; ++t) x.push_back(base[which.back() * d + t]);
    }
  }
};

TEST(EmbeddingSilhouette, RowsThatAreOneVectorAreZeroApart) {
  SKIP_WITHOUT_LAPACK();
  const SilhouetteRepeatedRows r;
  std::vector<uint64_t> all(r.n);
  for (uint64_t i = 0; i < r.n; ++i) all[i] = i;
  // k = 2: vectors 0 and 1 together, 2 alone.
  std::vector<uint32_t> two(r.n);
  for (uint64_t i = 0; i < r.n; ++i) two[i] = r.which[i] == 2 ? 1 : 0;
  const double want = silhouette_by_definition(r.x, r.d, two, 2);
  EXPECT_NEAR(silhouette(r.x, r.d, all, two, 2), want, 1e-9);
  // k = 3, each vector its own cluster: a = 0 for every row, so s = 1 exactly (it came out 0.9998).
  const double three = silhouette(r.x, r.d, all, r.which, 3);
  EXPECT_DOUBLE_EQ(three, 1.0);
  EXPECT_DOUBLE_EQ(silhouette_by_definition(r.x, r.d, r.which, 3), 1.0);
}

// Distinct rows: the float64 distances agree with the definition to rounding.
TEST(EmbeddingSilhouette, DistinctRowsAgreeWithTheDefinition) {
  SKIP_WITHOUT_LAPACK();
  const uint64_t n = 300, d = 24;
  test::NormalRng rng(5);
  std::vector<float> x(n * d);
  std::vector<uint32_t> labels(n);
  for (uint64_t i = 0; i < n; ++i) {
    labels[i] = static_cast<uint32_t>(i % 4);
    for (uint64_t t = 0; t < d; ++t) x[i * d + t] = static_cast<float>(10 + 0.5 * labels[i] + 0.02 * rng());
  }
  std::vector<uint64_t> all(n);
  for (uint64_t i = 0; i < n; ++i) all[i] = i;
  EXPECT_NEAR(silhouette(x, d, all, labels, 4), silhouette_by_definition(x, d, labels, 4), 1e-9);
}

}  // namespace
}  // namespace ma
