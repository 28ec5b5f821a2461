// The numbers of `compare` where plain pooled sums went wrong: a layer or a dtype of B in which values became
// NaN (or that has no pair finite on both sides) has no pooled figure — not ‖B−A‖/‖A‖ 0 and cosine 1 — ranks
// first and is marked in the drift plot; a NaN ratio does not break the layer ranking; a cosine stays within
// [-1, 1] and --cos-threshold -1 flags nothing; 1 - cosine of near-identical tensors is exact; float64 values
// near their maximum have their figures. Expected values come from numpy's definitions written here in long
// double (and, for 1 - cosine, from the two-pass form ||A/||A|| - B/||B||||² / 2), never from our output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/weight_compare.h"
#include "core/json.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "report/compare_report.h"
#include "report/drift_plot.h"
#include "report/run_info.h"
#include "svg_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// long double with float64's range and more of its digits (x86's 80-bit format): the independent reference.
bool cnt_have_wide_long_double() {
  return std::numeric_limits<long double>::digits >= 64 &&
         std::numeric_limits<long double>::max_exponent > 1024;
}
#define CNT_NEED_WIDE_LONG_DOUBLE()                                                                       \
  if (!cnt_have_wide_long_double())                                                                       \
  GTEST_SKIP() << "long double is no wider than double here: the long-double reference cannot check the " \
                  "figures"

// Values rounded to float32 (what an F32 tensor holds).
std::vector<double> cnt_f32_values(std::vector<double> v) {
  for (double& x : v) x = static_cast<double>(static_cast<float>(x));
  return v;
}

// What bf16_bytes(v) stores, decoded: the top 16 bits of the float32, rounded to nearest even.
std::vector<double> cnt_bf16_values(const std::vector<double>& v) {
  const std::string bytes = test::bf16_bytes(v);
  std::vector<double> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    uint16_t half;
    std::memcpy(&half, bytes.data() + 2 * i, 2);
    const uint32_t bits = static_cast<uint32_t>(half) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    out[i] = f;
  }
  return out;
}

std::string cnt_f64_bytes(const std::vector<double>& v) {
  std::string out(v.size() * 8, '\0');
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<double> cnt_normal(size_t n, uint64_t seed, double scale = 1) {
  test::NormalRng rng(seed);
  std::vector<double> v(n);
  for (double& x : v) x = scale * rng();
  return v;
}

// numpy's figures over the pairs finite on both sides, in long double.
struct CntReference {
  long double aa = 0, bb = 0, ab = 0, dd = 0;
  void add(const std::vector<double>& a, const std::vector<double>& b) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!std::isfinite(a[i]) || !std::isfinite(b[i])) continue;
      const long double x = a[i], y = b[i];
      aa += x * x;
      bb += y * y;
      ab += x * y;
      dd += (y - x) * (y - x);
    }
  }
  double rel_l2() const { return static_cast<double>(std::sqrt(dd / aa)); }
  double cosine() const { return static_cast<double>(ab / std::sqrt(aa * bb)); }
  double snr_db() const { return static_cast<double>(10 * std::log10(aa / dd)); }
};

// Population mean and std (numpy's ddof 0), two passes in long double.
std::pair<double, double> cnt_mean_std(const std::vector<double>& v) {
  long double sum = 0;
  for (double x : v) sum += x;
  const long double mean = sum / static_cast<long double>(v.size());
  long double m2 = 0;
  for (double x : v) m2 += (x - mean) * (x - mean);
  return {static_cast<double>(mean), static_cast<double>(std::sqrt(m2 / static_cast<long double>(v.size())))};
}

// 1 - cosine as ||A/||A|| - B/||B||||² / 2: two passes, no cancellation, in long double.
double cnt_one_minus_cosine(const std::vector<double>& a, const std::vector<double>& b) {
  long double aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    aa += static_cast<long double>(a[i]) * a[i];
    bb += static_cast<long double>(b[i]) * b[i];
  }
  const long double na = std::sqrt(aa), nb = std::sqrt(bb);
  long double d2 = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const long double d = a[i] / na - b[i] / nb;
    d2 += d * d;
  }
  return static_cast<double>(d2 / 2);
}

WeightComparison cnt_compare(const fs::path& a, const fs::path& b, CompareOptions options = {}) {
  std::vector<std::string> warnings;
  options.threads = 2;
  return compare_weights(locate_local_model(a.string()), locate_local_model(b.string()), options, warnings);
}

const TensorDrift& cnt_tensor(const WeightComparison& c, const std::string& name) {
  for (const TensorDrift& d : c.tensors)
    if (d.name == name) return d;
  ADD_FAILURE() << "no tensor " << name;
  static const TensorDrift none;
  return none;
}

const LayerDrift& cnt_layer(const WeightComparison& c, std::optional<uint32_t> layer) {
  for (const LayerDrift& l : c.layers)
    if (l.layer == layer) return l;
  ADD_FAILURE() << "no layer " << (layer ? std::to_string(*layer) : "outside");
  static const LayerDrift none;
  return none;
}

const DTypeDrift& cnt_dtype(const WeightComparison& c, DType dtype) {
  for (const DTypeDrift& t : c.by_dtype_b)
    if (t.dtype == dtype) return t;
  ADD_FAILURE() << "no dtype row " << dtype_info(dtype).name;
  static const DTypeDrift none;
  return none;
}

// The first cells of the console's MOST CHANGED LAYERS rows, in order.
std::vector<std::string> cnt_console_layer_order(const std::string& console) {
  std::vector<std::string> out;
  std::istringstream in(console.substr(console.find("MOST CHANGED LAYERS")));
  std::string line;
  std::getline(in, line);  // the heading
  std::getline(in, line);  // the column header
  while (std::getline(in, line) && !line.empty()) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) break;
    out.push_back(line.substr(start, line.find("  ", start) - start));
  }
  return out;
}

// The cells of one row of the console's MOST CHANGED LAYERS table, split at runs of two or more spaces.
std::vector<std::string> cnt_console_layer_cells(const std::string& console, const std::string& first_cell) {
  std::istringstream in(console.substr(console.find("MOST CHANGED LAYERS")));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    size_t at = line.find_first_not_of(' ');
    while (at != std::string::npos) {
      const size_t end = line.find("  ", at);
      cells.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
      at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
    }
    if (!cells.empty() && cells[0] == first_cell) return cells;
  }
  return {};
}

json::Document cnt_json(const WeightComparison& c) {
  std::string out;
  stream_compare_json(c, RunInfo{}, [&](std::string_view s) { out += s; });
  return json::Document::parse(out, "compare");
}

// Item 2 of the numerics review: B's layer 1 diverged (every value NaN), and so did its F16 lm_head; layer 4
// is NaN on both sides (no pair finite, nothing changed); the other layers changed a little.
TEST(CompareNumerics, ADivergedLayerHasNoPooledFigureAndRanksFirst) {
  CNT_NEED_WIDE_LONG_DOUBLE();
  test::TempDir dir;
  const size_t n = 256;
  const std::vector<double> nan(n, std::numeric_limits<double>::quiet_NaN());
  std::vector<TensorToWrite> ta, tb;
  std::vector<std::vector<double>> va(5), vb(5);
  for (uint32_t l = 0; l < 5; ++l) {
    va[l] = cnt_f32_values(cnt_normal(n, 10 + l));
    std::vector<double> noisy = va[l];
    const std::vector<double> noise = cnt_normal(n, 20 + l, 1e-3);
    for (size_t i = 0; i < n; ++i) noisy[i] += noise[i];
    vb[l] = l == 1 || l == 4 ? nan : l == 3 ? cnt_bf16_values(noisy) : cnt_f32_values(noisy);
    if (l == 4) va[l] = nan;
    const std::string name = "model.layers." + std::to_string(l) + ".mlp.up_proj.weight";
    ta.push_back({name, DType::F32, {16, 16}, test::f32_bytes(va[l])});
    tb.push_back({name,
                  l == 3 ? DType::BF16 : DType::F32,
                  {16, 16},
                  l == 3 ? test::bf16_bytes(noisy) : test::f32_bytes(vb[l])});
  }
  // lm_head: B stores it as F16, every element a NaN (0x7e00).
  std::string f16_nan;
  for (int i = 0; i < 64; ++i) f16_nan += std::string("\x00\x7e", 2);
  ta.push_back({"lm_head.weight", DType::F32, {8, 8}, test::f32_bytes(cnt_f32_values(cnt_normal(64, 30)))});
  tb.push_back({"lm_head.weight", DType::F16, {8, 8}, f16_nan});
  write_safetensors(dir / "a.safetensors", ta);
  write_safetensors(dir / "b.safetensors", tb);
  const WeightComparison c = cnt_compare(dir / "a.safetensors", dir / "b.safetensors");

  // Each tensor on its own, as before: the diverged one has no ratio and is flagged.
  EXPECT_TRUE(std::isnan(cnt_tensor(c, "model.layers.1.mlp.up_proj.weight").rel_l2));
  EXPECT_EQ(cnt_tensor(c, "model.layers.1.mlp.up_proj.weight").nonfinite_changed, n);

  // Layers that changed a little: numpy's figures.
  for (uint32_t l : {0u, 2u, 3u}) {
    CntReference ref;
    ref.add(va[l], vb[l]);
    const LayerDrift& layer = cnt_layer(c, l);
    EXPECT_NEAR(layer.rel_l2, ref.rel_l2(), 1e-14 * ref.rel_l2()) << l;
    EXPECT_NEAR(layer.cosine, ref.cosine(), 1e-15) << l;
    EXPECT_EQ(layer.nonfinite_changed, 0u) << l;
  }
  // The diverged layer: undefined, not rel 0 / cosine 1; its NaN changes counted; flagged.
  const LayerDrift& diverged = cnt_layer(c, 1);
  EXPECT_TRUE(std::isnan(diverged.rel_l2));
  EXPECT_TRUE(std::isnan(diverged.cosine));
  EXPECT_EQ(diverged.nonfinite_changed, n);
  EXPECT_EQ(diverged.flagged, 1u);
  // NaN on both sides: no pair to pool, so undefined too, but nothing changed and nothing is flagged.
  const LayerDrift& all_nan = cnt_layer(c, 4);
  EXPECT_TRUE(std::isnan(all_nan.rel_l2));
  EXPECT_EQ(all_nan.nonfinite_changed, 0u);
  EXPECT_EQ(all_nan.flagged, 0u);
  const LayerDrift& outside = cnt_layer(c, std::nullopt);
  EXPECT_TRUE(std::isnan(outside.rel_l2));
  EXPECT_EQ(outside.nonfinite_changed, 64u);

  // By B's dtype: F16 (only NaN) and F32 (holding the diverged layer) undefined; BF16 is numpy's.
  const DTypeDrift& f16 = cnt_dtype(c, DType::F16);
  EXPECT_TRUE(std::isnan(f16.rel_l2));
  EXPECT_TRUE(std::isnan(f16.snr_db));  // it read "inf", a perfect SNR
  EXPECT_EQ(f16.nonfinite_changed, 64u);
  const DTypeDrift& f32 = cnt_dtype(c, DType::F32);
  EXPECT_TRUE(std::isnan(f32.rel_l2));
  EXPECT_EQ(f32.nonfinite_changed, n);
  CntReference bf16_ref;
  bf16_ref.add(va[3], vb[3]);
  const DTypeDrift& bf16 = cnt_dtype(c, DType::BF16);
  EXPECT_NEAR(bf16.rel_l2, bf16_ref.rel_l2(), 1e-14 * bf16_ref.rel_l2());
  EXPECT_NEAR(bf16.snr_db, bf16_ref.snr_db(), 1e-12);
  EXPECT_EQ(bf16.nonfinite_changed, 0u);

  // The console ranks the layers with NaN changes first (most first), then the undefined one, then by ratio;
  // --top 2 no longer leaves the diverged layer out. Its figures are "-".
  const std::string console = render_compare_console(c, 20, false);
  const std::vector<std::string> order = cnt_console_layer_order(console);
  ASSERT_EQ(order.size(), 6u) << console;
  EXPECT_EQ(order[0], "1") << console;
  EXPECT_EQ(order[1], "(outside layers)") << console;
  EXPECT_EQ(order[2], "4") << console;
  EXPECT_EQ(cnt_console_layer_order(render_compare_console(c, 2, false)),
            (std::vector<std::string>{"1", "(outside layers)"}));
  const std::vector<std::string> row = cnt_console_layer_cells(console, "1");
  ASSERT_EQ(row.size(), 7u) << console;
  EXPECT_EQ(row[2], "-");    // ||B-A||/||A||
  EXPECT_EQ(row[3], "-");    // cosine
  EXPECT_EQ(row[5], "256");  // NaN/Inf changed

  // The JSON: null, with the count that says why.
  const json::Document d = cnt_json(c);
  const json::Value* layer1 = nullptr;
  for (const json::Value& l : d.root().find("layers")->items())
    if (!l.find("layer")->is_null() && l.find("layer")->as_uint() == 1u) layer1 = &l;
  ASSERT_NE(layer1, nullptr);
  EXPECT_TRUE(layer1->find("rel_l2")->is_null());
  EXPECT_TRUE(layer1->find("cosine")->is_null());
  ASSERT_NE(layer1->find("nonfinite_changed"), nullptr);
  EXPECT_EQ(layer1->find("nonfinite_changed")->as_uint(), n);
  for (const json::Value& t : d.root().find("by_dtype_b")->items())
    if (t.find("dtype")->as_string() == "f16") {
      EXPECT_TRUE(t.find("snr_db")->is_null());
      ASSERT_NE(t.find("nonfinite_changed"), nullptr);
      EXPECT_EQ(t.find("nonfinite_changed")->as_uint(), 64u);
    }

  // The drift plot marks the undefined layers instead of drawing a bar at 0 (and 1 - cosine at 0).
  const std::string svg = render_drift_by_layer_svg(c);
  test::expect_well_formed_svg(svg);
  const std::string bar1 = test::svg_group(svg, "bar layer-1 undefined flagged");
  ASSERT_FALSE(bar1.empty()) << svg;
  EXPECT_EQ(bar1.find("<rect"), std::string::npos);
  EXPECT_NE(bar1.find("n/a"), std::string::npos);
  EXPECT_TRUE(test::svg_group(svg, "bar layer-1 flagged").empty());
  EXPECT_FALSE(test::svg_group(svg, "bar layer-4 undefined").empty());
  EXPECT_FALSE(test::svg_group(svg, "bar layer-other undefined flagged").empty());
  EXPECT_FALSE(test::svg_group(svg, "marker layer-1 undefined").empty());
  EXPECT_NE(test::svg_group(svg, "bar layer-0").find("<rect"), std::string::npos);
  EXPECT_NE(test::svg_group(svg, "legend").find("n/a"), std::string::npos);
}

// Item 6 of the review: the layer ranking compared ratios with >, which a NaN breaks (layer 4 at 2.0 ranked
// below layer 0 at 1.12). An undefined ratio ranks as the largest, ties by max |B-A|.
TEST(CompareNumerics, AnUndefinedLayerRatioKeepsTheRankingInOrder) {
  WeightComparison c;
  const double rel[] = {1.118046, 1.334734, 2.0, NAN, 2.0};
  const double max_diff[] = {6.6, 1.0, 6e38, 2e198, 4.9e-30};
  for (uint32_t l = 0; l < 5; ++l) {
    LayerDrift d;
    d.layer = l;
    d.numel = 100;
    d.rel_l2 = rel[l];
    d.cosine = std::isnan(rel[l]) ? NAN : 0.5;
    d.max_abs_diff = max_diff[l];
    c.layers.push_back(d);
  }
  LayerDrift rest;
  rest.numel = 1;
  rest.rel_l2 = 0.5;
  rest.cosine = 1;
  rest.max_abs_diff = 1;
  c.layers.push_back(rest);
  EXPECT_EQ(cnt_console_layer_order(render_compare_console(c, 20, false)),
            (std::vector<std::string>{"3", "2", "4", "1", "0", "(outside layers)"}));
}

// Item 3: B = -c A in float32 has cosines a few ulps from -1, never beyond it; a negated tensor has -1
// exactly;
// --cos-threshold -1 is off. Each cosine within 1e-15 of numpy's.
TEST(CompareNumerics, CosinesStayWithinPlusMinusOneAndMinusOneIsOff) {
  CNT_NEED_WIDE_LONG_DOUBLE();
  test::TempDir dir;
  std::vector<TensorToWrite> ta, tb;
  std::vector<std::vector<double>> va, vb;
  test::NormalRng rng(3);
  for (int t = 0; t < 40; ++t) {
    const size_t n = 5 + static_cast<size_t>(std::fabs(rng()) * 100);
    const double scale = 0.1 + 8.9 * std::fabs(std::erf(rng()));
    std::vector<double> a = cnt_f32_values(cnt_normal(n, 100 + t)), b(n);
    for (size_t i = 0; i < n; ++i) b[i] = -scale * a[i];
    b = cnt_f32_values(b);
    const std::string name = "t" + std::to_string(t) + ".weight";
    ta.push_back({name, DType::F32, {n}, test::f32_bytes(a)});
    tb.push_back({name, DType::F32, {n}, test::f32_bytes(b)});
    va.push_back(a);
    vb.push_back(b);
  }
  const std::vector<double> a64 = cnt_normal(1000, 7), a32 = cnt_f32_values(cnt_normal(300, 8));
  std::vector<double> neg64 = a64, neg32 = a32;
  for (double& x : neg64) x = -x;
  for (double& x : neg32) x = -x;
  ta.push_back({"negated64.weight", DType::F64, {1000}, cnt_f64_bytes(a64)});
  tb.push_back({"negated64.weight", DType::F64, {1000}, cnt_f64_bytes(neg64)});
  ta.push_back({"negated32.weight", DType::F32, {300}, test::f32_bytes(a32)});
  tb.push_back({"negated32.weight", DType::F32, {300}, test::f32_bytes(neg32)});
  write_safetensors(dir / "a.safetensors", ta);
  write_safetensors(dir / "b.safetensors", tb);

  CompareOptions off;
  off.cosine_threshold = -1;
  off.rel_l2_threshold = 0;
  off.mean_threshold = 1e9;
  const WeightComparison c = cnt_compare(dir / "a.safetensors", dir / "b.safetensors", off);
  ASSERT_EQ(c.tensors.size(), 42u);
  for (const TensorDrift& d : c.tensors) {
    EXPECT_FALSE(d.flagged) << d.name << " cosine " << d.cosine;
    EXPECT_GE(d.cosine, -1.0) << d.name;
    EXPECT_LE(d.cosine, 1.0) << d.name;
  }
  for (size_t t = 0; t < va.size(); ++t) {
    CntReference ref;
    ref.add(va[t], vb[t]);
    EXPECT_NEAR(cnt_tensor(c, "t" + std::to_string(t) + ".weight").cosine, ref.cosine(), 1e-15) << t;
  }
  EXPECT_EQ(cnt_tensor(c, "negated64.weight").cosine, -1.0);
  EXPECT_EQ(cnt_tensor(c, "negated32.weight").cosine, -1.0);
  EXPECT_EQ(cnt_tensor(c, "negated32.weight").rel_l2, 2.0);
  // The rule in force otherwise: each of them has a cosine below 0.9.
  const WeightComparison on = cnt_compare(dir / "a.safetensors", dir / "b.safetensors");
  for (const TensorDrift& d : on.tensors) EXPECT_TRUE(d.flagged_by & kCosineRule) << d.name;
}

// The review's note to item 3: B = A (1 + 1e-7 n) in float32, 1 - cosine 5.8e-15, came out near 7e-14 from
// the quotient of plain running sums. Now within two ulps of 1 of the two-pass value, as a tensor, a layer
// (90,000 elements: two chunks), and for B = 3 A (norms apart, 1 - cosine of rounding alone).
TEST(CompareNumerics, OneMinusCosineOfNearIdenticalTensorsIsExact) {
  CNT_NEED_WIDE_LONG_DOUBLE();
  test::TempDir dir;
  const size_t n = 300 * 300;
  const std::vector<double> a = cnt_f32_values(cnt_normal(n, 41)), noise = cnt_normal(n, 42, 1e-7);
  std::vector<double> b(n), tripled(n);
  for (size_t i = 0; i < n; ++i) {
    b[i] = a[i] * (1 + noise[i]);
    tripled[i] = 3 * a[i];
  }
  b = cnt_f32_values(b);
  tripled = cnt_f32_values(tripled);
  write_safetensors(dir / "a.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {300, 300}, test::f32_bytes(a)},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {300, 300}, test::f32_bytes(a)}});
  write_safetensors(
      dir / "b.safetensors",
      {{"model.layers.0.mlp.up_proj.weight", DType::F32, {300, 300}, test::f32_bytes(b)},
       {"model.layers.1.mlp.up_proj.weight", DType::F32, {300, 300}, test::f32_bytes(tripled)}});
  const WeightComparison c = cnt_compare(dir / "a.safetensors", dir / "b.safetensors");
  const double ulp_below_one = 1 - std::nextafter(1.0, 0.0);
  const double near = cnt_one_minus_cosine(a, b), scaled = cnt_one_minus_cosine(a, tripled);
  ASSERT_GT(near, 1e-15);  // the case: a figure the plot shows on its log scale
  EXPECT_NEAR(1 - cnt_tensor(c, "model.layers.0.mlp.up_proj.weight").cosine, near, 2 * ulp_below_one);
  EXPECT_NEAR(1 - cnt_layer(c, 0).cosine, near, 2 * ulp_below_one);
  EXPECT_NEAR(1 - cnt_tensor(c, "model.layers.1.mlp.up_proj.weight").cosine, scaled, 2 * ulp_below_one);
  CntReference ref;
  ref.add(a, b);
  EXPECT_NEAR(cnt_layer(c, 0).rel_l2, ref.rel_l2(), 1e-14 * ref.rel_l2());
}

// Item 6: float64 values near 1e200 and near its maximum, whose squares overflow float64: the tensor, its
// layer and its dtype have their figures (they were all null), and the std too.
TEST(CompareNumerics, Float64NearItsMaximumHasFigures) {
  CNT_NEED_WIDE_LONG_DOUBLE();
  test::TempDir dir;
  const std::vector<double> big = cnt_normal(50, 5, 1e200);
  std::vector<double> big_b(big.size());
  for (size_t i = 0; i < big.size(); ++i) big_b[i] = 1.01 * big[i];
  const std::vector<double> edge = {1.5e308, -1.5e308, 1e308, 3}, edge_b = {-1.5e308, 1.5e308, -1e308, -3};
  const std::vector<double> small = cnt_f32_values(cnt_normal(64, 6));
  write_safetensors(dir / "a.safetensors",
                    {{"model.layers.0.mlp.down_proj.weight", DType::F64, {50}, cnt_f64_bytes(big)},
                     {"model.layers.1.mlp.down_proj.weight", DType::F64, {4}, cnt_f64_bytes(edge)},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {64}, test::f32_bytes(small)}});
  write_safetensors(dir / "b.safetensors",
                    {{"model.layers.0.mlp.down_proj.weight", DType::F64, {50}, cnt_f64_bytes(big_b)},
                     {"model.layers.1.mlp.down_proj.weight", DType::F64, {4}, cnt_f64_bytes(edge_b)},
                     {"model.layers.1.mlp.up_proj.weight", DType::F32, {64}, test::f32_bytes(small)}});
  const WeightComparison c = cnt_compare(dir / "a.safetensors", dir / "b.safetensors");

  CntReference ref_big;
  ref_big.add(big, big_b);
  const TensorDrift& t0 = cnt_tensor(c, "model.layers.0.mlp.down_proj.weight");
  EXPECT_NEAR(t0.rel_l2, ref_big.rel_l2(), 1e-14 * ref_big.rel_l2());
  EXPECT_NEAR(t0.cosine, ref_big.cosine(), 1e-15);
  const auto [mean_a, std_a] = cnt_mean_std(big);
  const auto [mean_b, std_b] = cnt_mean_std(big_b);
  EXPECT_NEAR(t0.mean_a, mean_a, 1e-14 * std_a);
  EXPECT_NEAR(t0.std_a, std_a, 1e-14 * std_a);
  EXPECT_NEAR(t0.std_ratio, std_b / std_a, 1e-14);
  EXPECT_NEAR(t0.mean_drift, std::fabs(mean_b - mean_a), 1e-13 * std_a);

  // [1.5e308, -1.5e308, 1e308, 3] against its negation: ||B-A|| = 2 ||A||, cosine -1, the same std.
  const TensorDrift& t1 = cnt_tensor(c, "model.layers.1.mlp.down_proj.weight");
  EXPECT_EQ(t1.rel_l2, 2.0);
  EXPECT_EQ(t1.cosine, -1.0);
  const auto [edge_mean, edge_std] = cnt_mean_std(edge);
  EXPECT_NEAR(t1.std_a, edge_std, 1e-14 * edge_std);
  EXPECT_NEAR(t1.mean_drift, 2 * edge_mean, 1e-14 * edge_mean);
  EXPECT_DOUBLE_EQ(t1.std_ratio, 1.0);
  EXPECT_TRUE(std::isinf(t1.max_abs_diff));  // 3e308 is past float64's range

  // Pooled: layer 0 as its one tensor; layer 1 as the large one (the F32 tensor is 1e-616 of it).
  EXPECT_NEAR(cnt_layer(c, 0).rel_l2, ref_big.rel_l2(), 1e-14 * ref_big.rel_l2());
  EXPECT_NEAR(cnt_layer(c, 0).cosine, ref_big.cosine(), 1e-15);
  EXPECT_EQ(cnt_layer(c, 1).rel_l2, 2.0);
  EXPECT_EQ(cnt_layer(c, 1).cosine, -1.0);
  CntReference ref_f64;
  ref_f64.add(big, big_b);
  ref_f64.add(edge, edge_b);
  const DTypeDrift& f64 = cnt_dtype(c, DType::F64);
  EXPECT_NEAR(f64.rel_l2, ref_f64.rel_l2(), 1e-14 * ref_f64.rel_l2());
  EXPECT_NEAR(f64.snr_db, ref_f64.snr_db(), 1e-12);

  // Ranked by their ratios; drawn as bars.
  EXPECT_EQ(cnt_console_layer_order(render_compare_console(c, 20, false)),
            (std::vector<std::string>{"1", "0"}));
  const std::string svg = render_drift_by_layer_svg(c);
  EXPECT_EQ(svg.find("undefined"), std::string::npos);
}

// Ordinary values stay numpy's: a tensor of 150,001 elements whose first chunk is small (1e-3) and whose rest
// is large (1e3) — the sums' scale grows after the first 65,536, and the moments taken so far are rescaled —
// beside a small tensor in the same layer.
TEST(CompareNumerics, FiguresAcrossChunksOfVeryDifferentScaleAreNumpys) {
  CNT_NEED_WIDE_LONG_DOUBLE();
  test::TempDir dir;
  const size_t n = 150001;
  std::vector<double> a = cnt_normal(n, 51), noise = cnt_normal(n, 52, 0.01), b(n);
  for (size_t i = 0; i < n; ++i) a[i] *= i < 70000 ? 1e-3 : 1e3;
  a = cnt_f32_values(a);
  for (size_t i = 0; i < n; ++i) b[i] = a[i] * (1 + noise[i]) + 0.5;
  b = cnt_f32_values(b);
  const std::vector<double> s = cnt_f32_values(cnt_normal(1001, 53)),
                            s_b = cnt_f32_values(cnt_normal(1001, 54));
  write_safetensors(dir / "a.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {n}, test::f32_bytes(a)},
                     {"model.layers.0.mlp.down_proj.weight", DType::F32, {1001}, test::f32_bytes(s)}});
  write_safetensors(dir / "b.safetensors",
                    {{"model.layers.0.mlp.up_proj.weight", DType::F32, {n}, test::f32_bytes(b)},
                     {"model.layers.0.mlp.down_proj.weight", DType::F32, {1001}, test::f32_bytes(s_b)}});
  const WeightComparison c = cnt_compare(dir / "a.safetensors", dir / "b.safetensors");
  const TensorDrift& t = cnt_tensor(c, "model.layers.0.mlp.up_proj.weight");
  const auto [mean_a, std_a] = cnt_mean_std(a);
  const auto [mean_b, std_b] = cnt_mean_std(b);
  EXPECT_NEAR(t.mean_a, mean_a, 1e-13 * std_a);
  EXPECT_NEAR(t.mean_b, mean_b, 1e-13 * std_b);
  EXPECT_NEAR(t.std_a, std_a, 1e-13 * std_a);
  EXPECT_NEAR(t.std_b, std_b, 1e-13 * std_b);
  EXPECT_NEAR(t.std_ratio, std_b / std_a, 1e-13);
  CntReference ref;
  ref.add(a, b);
  EXPECT_NEAR(t.rel_l2, ref.rel_l2(), 1e-14 * ref.rel_l2());
  EXPECT_NEAR(t.cosine, ref.cosine(), 1e-15);
  const TensorDrift& u = cnt_tensor(c, "model.layers.0.mlp.down_proj.weight");
  CntReference ref_u;
  ref_u.add(s, s_b);
  EXPECT_NEAR(u.rel_l2, ref_u.rel_l2(), 1e-14 * ref_u.rel_l2());
  EXPECT_NEAR(u.cosine, ref_u.cosine(), 1e-15);
  ref.add(s, s_b);  // the layer pools both
  EXPECT_NEAR(cnt_layer(c, 0).rel_l2, ref.rel_l2(), 1e-14 * ref.rel_l2());
  EXPECT_NEAR(cnt_layer(c, 0).cosine, ref.cosine(), 1e-15);
  EXPECT_NEAR(cnt_dtype(c, DType::F32).snr_db, ref.snr_db(), 1e-12);
}

}  // namespace
}  // namespace ma
