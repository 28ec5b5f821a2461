// The kurtosis of a constant tensor is m4 / m2² = 0 / 0: undefined, NaN in TensorStats, null in the JSON, as
// the README says undefined values are (it was reported 0, a Gaussian's excess kurtosis).
// scipy.stats.kurtosis agrees: nan for a constant, and for a variance within float64's resolution of the
// squared mean. Every path that fills the moments is checked (apply_moments, the exact path for types of at
// most 16 bits, the two-pass path for 32/64-bit types), with the JSON, and plan --weights, which reads the
// kurtosis.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "analysis/model_weight_stats.h"
#include "analysis/plan/conversion.h"
#include "analysis/stats_math.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "report/run_info.h"
#include "report/stats_report.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

std::string kurtosis_f32_bytes(const std::vector<float>& v) {
  std::string out(v.size() * 4, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::string kurtosis_f64_bytes(const std::vector<double>& v) {
  std::string out(v.size() * 8, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

// 1.0 in BF16 is 0x3f80.
std::string kurtosis_bf16_ones(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += std::string("\x80\x3f", 2);
  return out;
}

TEST(KurtosisConstant, ApplyMomentsLeavesAConstantsKurtosisUndefined) {
  TensorStats s;
  apply_moments(s, Moments{10, 1.0, 0, 0, 0});
  EXPECT_DOUBLE_EQ(s.mean, 1.0);
  EXPECT_EQ(s.var, 0.0);
  EXPECT_EQ(s.std, 0.0);
  EXPECT_TRUE(std::isnan(s.kurtosis)) << "0 / 0, not " << s.kurtosis;

  // A constant 0.1 whose mean came out an ulp off: m2 = n·d², m4 = n·d⁴ give m4 / m2² - 3 = -2 from rounding
  // alone; scipy says nan (m2 <= (1e-15·mean)²).
  const double d = std::nextafter(0.1, 1.0) - 0.1;
  TensorStats near;
  apply_moments(near, Moments{1000, 0.1 + d, 1000 * d * d, 0, 1000 * d * d * d * d});
  EXPECT_TRUE(std::isnan(near.kurtosis)) << near.kurtosis;

  // Not constant: 1..5 has m2 = 2, m4 = 6.8, kurtosis 6.8 / 4 - 3 = -1.3 (scipy.stats.kurtosis([1,2,3,4,5])).
  std::vector<double> x = {1, 2, 3, 4, 5};
  TensorStats five;
  apply_moments(five, moments_of_block(x.data(), x.size()));
  EXPECT_NEAR(five.kurtosis, -1.3, 1e-12);
}

TEST(KurtosisConstant, TheExactPathLeavesAConstantsKurtosisUndefined) {
  TensorStats s;
  stats_from_distinct(s, {{1.0, 100}}, 8);
  EXPECT_EQ(s.finite, 100u);
  EXPECT_DOUBLE_EQ(s.mean, 1.0);
  EXPECT_EQ(s.std, 0.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 1.0);
  EXPECT_TRUE(std::isnan(s.kurtosis)) << s.kurtosis;
  TensorStats two;
  stats_from_distinct(two, {{-1.0, 50}, {1.0, 50}}, 8);
  EXPECT_DOUBLE_EQ(two.kurtosis, -2.0) << "two equal point masses: m4 / m2² = 1";
}

// A constant of each path through `stats` (BF16 exact, F32 and F64 two-pass, a tensor large enough to be
// split into units), then the JSON: kurtosis null for the constants, a number for the normal tensor; and plan
// --weights' hint skips the constant (no std) rather than taking its kurtosis.
TEST(KurtosisConstant, StatsJsonSaysNullAndPlanSkipsTheConstant) {
  test::TempDir dir;
  test::NormalRng rng(5);
  std::vector<float> normal(4096);
  for (float& x : normal) x = static_cast<float>(rng());
  const fs::path file = dir / "model.safetensors";
  write_safetensors(file,
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {64, 64}, kurtosis_f32_bytes(normal)},
                     {"model.layers.0.mlp.down_proj.weight",
                      DType::F32,
                      {64, 64},
                      kurtosis_f32_bytes(std::vector<float>(4096, 1.0f))},
                     {"model.layers.0.mlp.gate_proj.weight",
                      DType::F64,
                      {300, 1000},
                      kurtosis_f64_bytes(std::vector<double>(300000, 0.1))},
                     {"model.norm.weight", DType::BF16, {64}, kurtosis_bf16_ones(64)}});
  ModelWeightsInput in;
  in.model = locate_local_model(file.string());
  std::vector<std::string> warnings;
  const PlannedScan plan = plan_scan(in, StatsSelection{}, warnings);
  ScanOptions options;
  options.unit_bytes = 64 << 10;  // the F64 constant in several units, merged
  options.threads = 2;
  const WeightStats stats = compute_weight_stats(plan, options);
  ASSERT_EQ(stats.tensors.size(), 4u);
  for (const TensorStats& t : stats.tensors) {
    SCOPED_TRACE(t.name);
    if (t.name == "model.layers.0.mlp.up_proj.weight") {
      EXPECT_TRUE(std::isfinite(t.kurtosis));
    } else {
      EXPECT_EQ(t.std, 0.0);
      EXPECT_TRUE(std::isnan(t.kurtosis)) << t.kurtosis;
    }
  }

  std::string json;
  stream_stats_json(stats, RunInfo{}, [&](std::string_view part) { json += part; });
  const json::Document d = json::Document::parse(json, "stats --json");
  EXPECT_TRUE(test::tensor(d, "model.layers.0.mlp.down_proj.weight").find("kurtosis")->is_null());
  EXPECT_TRUE(test::tensor(d, "model.layers.0.mlp.gate_proj.weight").find("kurtosis")->is_null());
  EXPECT_TRUE(test::tensor(d, "model.norm.weight").find("kurtosis")->is_null());
  EXPECT_TRUE(test::tensor(d, "model.layers.0.mlp.up_proj.weight").find("kurtosis")->is_number());
  const std::string console = render_stats_console(stats, false);
  EXPECT_EQ(console.find("nan"), std::string::npos) << console;

  ConversionPlan c;
  c.quantizable.resize(1);
  c.quantizable[0].block = stats.tensors[0].block;
  add_sensitivity(c, stats);
  ASSERT_TRUE(c.quantizable[0].max_kurtosis);
  EXPECT_TRUE(std::isfinite(*c.quantizable[0].max_kurtosis));
  EXPECT_DOUBLE_EQ(*c.quantizable[0].max_kurtosis, stats.tensors[0].kurtosis);
}

}  // namespace
}  // namespace ma
