// Histogram edges of float64 values whose range is past DBL_MAX ([-1.7e308, 1.7e308]): last − first
// overflowed, every edge but the last came out NaN (JSON null) and every value fell in bin 0. numpy raises
// there, so there is no bit-for-bit reference; the edges are numpy's linspace computed at half scale, all
// finite, and values fall in the bin between their edges. Ordinary ranges keep numpy's edges exactly.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <vector>

#include "analysis/stats_math.h"
#include "analysis/weight_scan.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

TEST(StatsHistogramRange, EdgesOfARangePastDblMaxAreFinite) {
  const double first = -1.7e308, last = 1.7e308;
  ASSERT_TRUE(std::isinf(last - first));
  for (const uint32_t bins : {1u, 4u, 64u}) {
    SCOPED_TRACE(bins);
    const std::vector<double> e = histogram_edges(first, last, bins);
    ASSERT_EQ(e.size(), bins + 1);
    EXPECT_EQ(e.front(), first);
    EXPECT_EQ(e.back(), last);
    // The linspace written another way, as the weighted mean (1 − t)·first + t·last, t = i / bins, whose
    // terms never overflow.
    for (uint32_t i = 0; i <= bins; ++i) {
      const double t = static_cast<double>(i) / bins;
      EXPECT_TRUE(std::isfinite(e[i])) << "edge " << i;
      EXPECT_NEAR(e[i], (1 - t) * first + t * last, 1e-15 * last) << "edge " << i;
      if (i > 0) {
        EXPECT_GT(e[i], e[i - 1]);
      }
    }
  }
  // The middle edge of an even split is 0 exactly.
  EXPECT_EQ(histogram_edges(first, last, 4)[2], 0.0);
}

TEST(StatsHistogramRange, ValuesFallBetweenTheirEdges) {
  // Edges -1.7e308, -8.5e307, 0, 8.5e307, 1.7e308; numpy's half-open bins, the last one closed.
  const std::vector<double> e = histogram_edges(-1.7e308, 1.7e308, 4);
  const HistogramBinner binner(e);
  const double values[] = {-1.7e308, -1e308, -1, 0, 1, 5, 1e308, 1.7e308};
  const uint32_t expected[] = {0, 0, 1, 2, 2, 2, 3, 3};
  for (size_t i = 0; i < std::size(values); ++i) EXPECT_EQ(binner.bin(values[i]), expected[i]) << values[i];
}

TEST(StatsHistogramRange, OrdinaryRangesKeepNumpysEdges) {
  // numpy.linspace(-1, 2, 7) and numpy.histogram's bins for it: i·0.5 − 1.
  const std::vector<double> e = histogram_edges(-1, 2, 6);
  for (uint32_t i = 0; i <= 6; ++i) EXPECT_EQ(e[i], i * 0.5 - 1);
  const HistogramBinner binner(e);
  EXPECT_EQ(binner.bin(-1), 0u);
  EXPECT_EQ(binner.bin(-0.5), 1u);
  EXPECT_EQ(binner.bin(1.9), 5u);
  EXPECT_EQ(binner.bin(2), 5u) << "the last bin holds its upper edge";
}

// Through the scan: the review's tensor [1.7e308, -1.7e308, 0] gets finite edges and one value in each of
// bins 0, 32 and 63 of 64.
TEST(StatsHistogramRange, ScanOfAFloat64TensorAcrossTheWholeRange) {
  test::TempDir dir;
  const fs::path file = dir / "f64.bin";
  const double v[] = {1.7e308, -1.7e308, 0.0};
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(v), sizeof v);
  ScanOptions o;
  o.threads = 1;
  const std::vector<TensorStats> s =
      scan_weights({{"f64_extreme", file, 0, sizeof v, DType::F64, Shape{3}, 3, {}}}, o);
  ASSERT_EQ(s.size(), 1u);
  const std::vector<double>& edges = s[0].histogram.edges;
  ASSERT_EQ(edges.size(), 65u);
  for (double x : edges) EXPECT_TRUE(std::isfinite(x));
  EXPECT_EQ(edges.front(), -1.7e308);
  EXPECT_EQ(edges.back(), 1.7e308);
  std::vector<uint64_t> counts(64, 0);
  counts[0] = counts[32] = counts[63] = 1;
  EXPECT_EQ(s[0].histogram.counts, counts);
}

// Eight values, four bins: the vector loop's step would be infinite; each value falls in numpy's bin of the
// edges -1.7e308, -0.85e308, 0, 0.85e308, 1.7e308 (a value on an inner edge in the bin above it).
TEST(StatsHistogramRange, EveryValueOfAWideTensorFindsItsBin) {
  test::TempDir dir;
  const fs::path file = dir / "f64.bin";
  const double v[] = {-1.7e308, -1e308, -1.0, 0.0, 1.0, 5.0, 1e308, 1.7e308};
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(v), sizeof v);
  ScanOptions o;
  o.threads = 1;
  o.bins = 4;
  const std::vector<TensorStats> s =
      scan_weights({{"f64_wide", file, 0, sizeof v, DType::F64, Shape{8}, 8, {}}}, o);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].histogram.counts, (std::vector<uint64_t>{2, 1, 3, 2}));
}

}  // namespace
}  // namespace ma
