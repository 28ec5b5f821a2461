// `modelanalyzer compare` end to end on the numerics review's cases (tests/unit/compare_numerics_test.cpp
// checks the figures against long-double references): a layer whose values all became NaN leads the console's
// MOST CHANGED LAYERS with "-" even under --top 2, is null in the JSON and marked in the plot;
// --cos-threshold -1 flags nothing and no cosine leaves [-1, 1]; float64 values near 1e200 have their
// figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"
#include "test_support.h"

namespace ma {
namespace {

std::vector<double> ccn_values(size_t n, uint64_t seed, double scale = 1) {
  test::NormalRng rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = static_cast<double>(static_cast<float>(scale * rng()));
  return v;
}

std::string ccn_f64_bytes(const std::vector<double>& v) {
  std::string out(v.size() * 8, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::string ccn_compare(const test::TempDir& dir, const std::string& flags) {
  const auto r = test::run_cli("compare " + test::quoted(dir / "a.safetensors") + " " +
                               test::quoted(dir / "b.safetensors") + " " + flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The review's gen_cmp2.py: layers 0 and 2 changed by 0.1%, every value of B's layer 1 NaN, and B's BF16
// lm_head all NaN.
TEST(CliCompareNumerics, ADivergedLayerLeadsTheConsoleAndIsNullInTheJson) {
  test::TempDir dir;
  std::vector<TensorToWrite> ta, tb;
  for (uint32_t l = 0; l < 3; ++l)
    for (const char* m : {"self_attn.q_proj.weight", "mlp.up_proj.weight"}) {
      const std::vector<double> a = ccn_values(256, 10 * l + (m[0] == 's')),
                                noise = ccn_values(256, 99, 1e-3);
      std::vector<double> b(256, std::numeric_limits<double>::quiet_NaN());
      if (l != 1)
        for (size_t i = 0; i < b.size(); ++i) b[i] = a[i] + noise[i];
      const std::string name = "model.layers." + std::to_string(l) + "." + m;
      ta.push_back({name, DType::F32, {16, 16}, test::f32_bytes(a)});
      tb.push_back({name, DType::F32, {16, 16}, test::f32_bytes(b)});
    }
  std::string bf16_nan;
  for (int i = 0; i < 64; ++i) bf16_nan += std::string("\xc0\x7f", 2);
  ta.push_back({"lm_head.weight", DType::F32, {8, 8}, test::f32_bytes(ccn_values(64, 5))});
  tb.push_back({"lm_head.weight", DType::BF16, {8, 8}, bf16_nan});
  write_safetensors(dir / "a.safetensors", ta);
  write_safetensors(dir / "b.safetensors", tb);

  // --top 2 showed layers 0 and 2 and left the diverged layer out.
  const std::string console = ccn_compare(dir, "--top 2");
  const size_t layers = console.find("MOST CHANGED LAYERS");
  ASSERT_NE(layers, std::string::npos) << console;
  const size_t first_row = console.find('\n', console.find('\n', layers) + 1) + 1;
  const std::string row = console.substr(first_row, console.find('\n', first_row) - first_row);
  EXPECT_EQ(row.find("  1 "), 0u) << console;
  EXPECT_NE(row.find(" - "), std::string::npos) << row;
  EXPECT_NE(row.find(" 512 "), std::string::npos) << row;  // its NaN changes
  // The BF16 row read "inf" dB.
  EXPECT_EQ(console.find(" inf "), std::string::npos) << console;

  const json::Document d = json::Document::parse(ccn_compare(dir, "--json"), "compare");
  const json::Value& layer1 = d.root().find("layers")->items().at(1);
  EXPECT_EQ(layer1.find("layer")->as_uint(), 1u);
  EXPECT_TRUE(layer1.find("rel_l2")->is_null());
  EXPECT_TRUE(layer1.find("cosine")->is_null());
  ASSERT_NE(layer1.find("nonfinite_changed"), nullptr);
  EXPECT_EQ(layer1.find("nonfinite_changed")->as_uint(), 512u);
  for (const json::Value& t : d.root().find("by_dtype_b")->items()) {
    EXPECT_TRUE(t.find("rel_l2")->is_null()) << t.find("dtype")->as_string();
    EXPECT_TRUE(t.find("snr_db")->is_null()) << t.find("dtype")->as_string();
  }

  // The plot draws it as undefined, not as a bar at 0.
  ccn_compare(dir, "--quiet --plot " + test::quoted(dir / "drift.svg"));
  const std::string svg = test::read_file(dir / "drift.svg");
  EXPECT_NE(svg.find("<g class=\"bar layer-1 undefined flagged\">"), std::string::npos);
  EXPECT_EQ(svg.find("<g class=\"bar layer-1 flagged\">"), std::string::npos);
}

// The review's gen_cmp3.py and gen_cmp.py's float64 case: B = -c A has cosines a few ulps from -1 (they were
// -1.0000000000000009, flagged under --cos-threshold -1, which --help calls off); B = 1.01 A of N(0,1)·1e200
// had null figures. Expected: ||1.01 A - A|| / ||A|| = 0.01 and std ratio 1.01 (up to the rounding of 1.01 a,
// 1e-16 of each element), cosine 1. (Its mean drift, 1e197, is under --threshold 1e300.)
TEST(CliCompareNumerics, CosThresholdMinusOneIsOffAndFloat64NearItsRangeHasFigures) {
  test::TempDir dir;
  std::vector<TensorToWrite> ta, tb;
  for (int t = 0; t < 10; ++t) {
    const std::vector<double> a = ccn_values(50 + 37 * t, 200 + t);
    std::vector<double> b(a.size());
    for (size_t i = 0; i < a.size(); ++i) b[i] = -(0.1 + 0.9 * t) * a[i];
    const std::string name = "t" + std::to_string(t) + ".weight";
    ta.push_back({name, DType::F32, {a.size()}, test::f32_bytes(a)});
    tb.push_back({name, DType::F32, {a.size()}, test::f32_bytes(b)});
  }
  test::NormalRng rng(7);
  std::vector<double> big(50), big_b(50);
  for (size_t i = 0; i < big.size(); ++i) {
    big[i] = rng() * 1e200;
    big_b[i] = 1.01 * big[i];
  }
  ta.push_back({"model.layers.3.mlp.down_proj.weight", DType::F64, {50}, ccn_f64_bytes(big)});
  tb.push_back({"model.layers.3.mlp.down_proj.weight", DType::F64, {50}, ccn_f64_bytes(big_b)});
  write_safetensors(dir / "a.safetensors", ta);
  write_safetensors(dir / "b.safetensors", tb);

  const json::Document d = json::Document::parse(
      ccn_compare(dir, "--json --cos-threshold -1 --threshold 1e300 --rel-threshold 0"), "compare");
  EXPECT_EQ(d.root().find("flagged")->as_uint(), 0u);
  for (const json::Value& t : d.root().find("tensors")->items()) {
    const double cosine = t.find("cosine")->as_double();
    EXPECT_GE(cosine, -1.0) << t.find("name")->as_string();
    EXPECT_LE(cosine, 1.0) << t.find("name")->as_string();
  }
  const json::Value& f64 = test::tensor(d, "model.layers.3.mlp.down_proj.weight");
  ASSERT_FALSE(f64.find("rel_l2")->is_null());
  EXPECT_NEAR(f64.find("rel_l2")->as_double(), 0.01, 1e-13);
  EXPECT_NEAR(f64.find("cosine")->as_double(), 1.0, 1e-15);
  EXPECT_NEAR(f64.find("std_ratio")->as_double(), 1.01, 1e-13);
  const json::Value& layer3 = d.root().find("layers")->items().at(0);
  EXPECT_EQ(layer3.find("layer")->as_uint(), 3u);
  EXPECT_NEAR(layer3.find("rel_l2")->as_double(), 0.01, 1e-13);
  for (const json::Value& t : d.root().find("by_dtype_b")->items())
    if (t.find("dtype")->as_string() == "f64") {
      EXPECT_NEAR(t.find("snr_db")->as_double(), 40.0, 1e-10);
    }
}

}  // namespace
}  // namespace ma
