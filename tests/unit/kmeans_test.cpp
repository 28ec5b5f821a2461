// The pieces of `embeddings` that need no model: the Kneedle elbow on curves worked by hand, and k-means on
// points whose clustering is known.
#include "analysis/embedding/kmeans.h"

#include <gtest/gtest.h>

#include "lapack_test_support.h"

namespace ma {
namespace {

// A curve that falls linearly to k = 5 and is flat after: the knee is where the fall ends.
TEST(Kneedle, KneeWhereTheFallEnds) {
  EXPECT_EQ(kneedle_elbow({1, 2, 3, 4, 5, 6, 7, 8}, {400, 300, 200, 100, 0, 0, 0, 0}), 5u);
  // 1/k: the point of largest (1 − y') − k'.
  std::vector<uint32_t> ks;
  std::vector<double> y;
  for (uint32_t k = 1; k <= 10; ++k) {
    ks.push_back(k);
    y.push_back(1.0 / k);
  }
  // (1 − y') − k' with y' = (1/k − 0.1) / 0.9, k' = (k − 1) / 9: largest at k = 3 (0.5185 − ...).
  size_t best = 0;
  double best_d = -1;
  for (size_t i = 0; i < ks.size(); ++i) {
    const double d = (1 - (y[i] - 0.1) / 0.9) - (ks[i] - 1) / 9.0;
    if (d > best_d) best_d = d, best = i;
  }
  EXPECT_EQ(kneedle_elbow(ks, y), ks[best]);
  EXPECT_EQ(ks[best], 3u);
}

TEST(Kneedle, DegenerateCurves) {
  EXPECT_EQ(kneedle_elbow({4}, {10}), 4u);
  EXPECT_EQ(kneedle_elbow({4, 5}, {10, 5}), 4u) << "two points have no knee";
  EXPECT_EQ(kneedle_elbow({2, 3, 4}, {7, 7, 7}), 2u) << "a flat curve";
}

// Two tight groups far apart: k = 2 finds them whatever the seed, with the inertia of each group about
// its mean; one cluster holds everything for k = 1; the silhouette of clean groups is near 1.
TEST(KMeans, FindsSeparatedGroups) {
  SKIP_WITHOUT_LAPACK();
  std::vector<float> x = {0, 0, 0, 1, 1, 0, 1, 1, 10, 10, 10, 11, 11, 10, 11, 11};  // 8 points in 2-D
  for (uint64_t seed : {0u, 1u, 7u}) {
    KMeansOptions o;
    o.k = 2;
    o.seed = seed;
    const KMeansResult r = kmeans(x, 8, 2, o);
    EXPECT_EQ(r.sizes[0], 4u);
    EXPECT_EQ(r.sizes[1], 4u);
    EXPECT_NE(r.labels[0], r.labels[4]);
    for (int i = 1; i < 4; ++i) EXPECT_EQ(r.labels[i], r.labels[0]);
    EXPECT_DOUBLE_EQ(r.inertia, 4.0) << "each group: four corners of a unit square, 0.5 from the centre each";
    EXPECT_TRUE(r.converged);
    std::vector<uint64_t> all = {0, 1, 2, 3, 4, 5, 6, 7};
    EXPECT_GT(silhouette(x, 2, all, r.labels, 2), 0.9);
  }
  KMeansOptions one;
  one.k = 1;
  const KMeansResult r = kmeans(x, 8, 2, one);
  EXPECT_EQ(r.sizes[0], 8u);
  EXPECT_NEAR(r.inertia, 8 * 0.5 + 8 * 25.0 * 2, 1e-9) << "spread about the mean (5.5, 5.5)";
}

}  // namespace
}  // namespace ma
