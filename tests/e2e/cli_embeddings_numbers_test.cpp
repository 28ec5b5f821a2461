// `modelanalyzer embeddings` on matrices whose figures are worked out here: rows sharing a large offset
// (k-means on float32 distances mixed two groups until the rows were centred), numpy's median absolute
// deviation for an even row count, the two-pass std of nearly equal norms, and a silhouette with one cluster
// (undefined, as scikit-learn refuses it). Skips without LAPACK.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"

namespace ma {
namespace {

namespace fs = std::filesystem;
using test::quoted;

// A model directory holding one embedding of `rows` x `cols` float32 values.
void write_embedding(const fs::path& dir, const std::vector<float>& x, uint64_t rows, uint64_t cols) {
  std::string bytes(x.size() * 4, '\0');
  std::memcpy(bytes.data(), x.data(), bytes.size());
  write_safetensors(dir / "model.safetensors",
                    {{"model.embed_tokens.weight", DType::F32, {rows, cols}, bytes}});
}

// The JSON of `embeddings` on `dir`, or nullopt (the test skips) when LAPACK is missing (exit 10).
std::optional<json::Document> embeddings(const fs::path& dir, const std::string& options) {
  const test::CommandResult r = test::run_cli("embeddings " + quoted(dir) + " --json " + options);
  if (r.exit_code == 10 && r.err.find("LAPACK") != std::string::npos) return std::nullopt;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::Document::parse(r.out, "embeddings");
}

// Two groups of 200 rows around 1000 in every coordinate, 0.5 apart in the first, each spread ±0.05 by a
// fixed pattern: k = 2 splits them, with the inertia of each group about its own mean. Uncentred, float32's
// ‖x‖² − 2 x·c + ‖c‖² (~1.6e7 each) lost the distances (~0.06) and mixed the groups.
TEST(CliEmbeddingsNumbers, RowsSharingALargeOffsetAreClusteredByTheirDifferences) {
  test::TempDir dir;
  constexpr uint64_t kRows = 400, kCols = 16;
  std::vector<float> x(kRows * kCols);
  double inertia = 0;
  for (uint64_t g = 0; g < 2; ++g) {
    std::vector<double> mean(kCols, 0.0);
    for (uint64_t i = g * 200; i < (g + 1) * 200; ++i)
      for (uint64_t t = 0; t < kCols; ++t) {
        const double spread = 0.05 * std::sin(static_cast<double>(7 * i + 13 * t));
        x[i * kCols + t] =
            static_cast<float>(1000.0 + (t == 0 ? 0.5 * static_cast<double>(g) : 0.0) + spread);
        mean[t] += x[i * kCols + t] / 200.0;
      }
    for (uint64_t i = g * 200; i < (g + 1) * 200; ++i)
      for (uint64_t t = 0; t < kCols; ++t) inertia += std::pow(x[i * kCols + t] - mean[t], 2);
  }
  write_embedding(dir.path(), x, kRows, kCols);
  const auto d = embeddings(dir.path(), "--k 2");
  if (!d) GTEST_SKIP() << "no LAPACK";
  const auto& clusters = d->root().find("clusters")->items();
  ASSERT_EQ(clusters.size(), 2u);
  EXPECT_EQ(clusters[0].find("size")->as_uint(), 200u);
  EXPECT_EQ(clusters[1].find("size")->as_uint(), 200u);
  EXPECT_NEAR(d->root().find("inertia")->as_double(), inertia, 1e-3 * inertia);
  // Groups 0.5 apart, rows ~0.15 apart within one: about 0.7 (a mixed clustering is near 0).
  EXPECT_GT(d->root().find("silhouette")->as_double(), 0.6);
}

// Norms 1, 2, 3 and 10: median 2.5, deviations 1.5, 0.5, 0.5, 7.5, whose median is numpy's (0.5 + 1.5) / 2
// = 1 (the upper middle gave 1.5); the 10 is then an outlier (0.6745 x 7.5 / 1 = 5.06 > 3.5). The std of
// the norms is numpy's, two passes.
TEST(CliEmbeddingsNumbers, NormStatisticsAreNumpys) {
  test::TempDir dir;
  write_embedding(dir.path(), {1, 2, 3, 10}, 4, 1);
  const auto d = embeddings(dir.path(), "--k 1");
  if (!d) GTEST_SKIP() << "no LAPACK";
  const json::Value& norms = *d->root().find("norms");
  EXPECT_DOUBLE_EQ(norms.find("mad")->as_double(), 1.0);
  EXPECT_EQ(d->root().find("outlier_count")->as_uint(), 1u);
  EXPECT_DOUBLE_EQ(norms.find("std")->as_double(),
                   std::sqrt((9.0 + 4 + 1 + 36) / 4));  // about their mean, 4
  // Norms 1000 ± 2e-4: E[x²] − E[x]² lost a fifth of their std.
  test::TempDir close;
  std::vector<float> rows;
  for (int i = 0; i < 100; ++i)
    rows.push_back(1000.0f + (i % 2 ? 2e-4f : -2e-4f) * static_cast<float>(i % 5));
  write_embedding(close.path(), rows, 100, 1);
  const auto c = embeddings(close.path(), "--k 1");
  ASSERT_TRUE(c);
  double mean = 0, var = 0;
  for (float v : rows) mean += v / 100.0;
  for (float v : rows) var += (v - mean) * (v - mean) / 100.0;
  EXPECT_NEAR(c->root().find("norms")->find("std")->as_double(), std::sqrt(var), 1e-6 * std::sqrt(var));
}

// Identical rows asked for 3 clusters end in one: no neighbouring cluster to compare with, so the silhouette
// is undefined (null), as for k = 1, not 0.
TEST(CliEmbeddingsNumbers, ASilhouetteOfOneClusterIsUndefined) {
  test::TempDir dir;
  write_embedding(dir.path(), std::vector<float>(50 * 4, 0.25f), 50, 4);
  const auto d = embeddings(dir.path(), "--k 3");
  if (!d) GTEST_SKIP() << "no LAPACK";
  EXPECT_TRUE(d->root().find("silhouette")->is_null());
}

}  // namespace
}  // namespace ma
