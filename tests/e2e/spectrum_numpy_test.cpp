// `modelanalyzer spectrum` against an independent float64 numpy reference (scripts/spectrum_reference.py:
// its own safetensors parser and BF16 decoding, numpy.linalg.svd, its own rank / energy / power-law code).
// Planted rank-r matrices (r = 5, 17, 64 in 512 x 512, F32 and BF16), a full-rank rectangle, a stacked
// expert tensor, a vector and 3-D and 4-D kernels are written with our safetensors writer; both programs run
// on the file. actual_rank is numpy.linalg.matrix_rank's rule whatever the stored dtype: F32 keeps the
// planted rank, BF16's rounding raises hundreds of σ above float32's tolerance; storage_rank, σ above what
// that rounding can make, recovers the planted rank of BF16. Skips (visibly) without /usr/bin/python3 + numpy
// or without LAPACK.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"

namespace ma {
namespace {

namespace fs = std::filesystem;
using test::quoted;
using test::run_shell;

using test::kPython;

std::vector<double> gaussian(test::NormalRng& rng, size_t n) {
  std::vector<double> v(n);
  for (double& x : v) x = rng();
  return v;
}

// W = A B with A (rows x r) and B (r x cols) Gaussian: rank r exactly in exact arithmetic.
std::vector<double> planted(test::NormalRng& rng, size_t rows, size_t cols, size_t r) {
  const std::vector<double> a = gaussian(rng, rows * r), b = gaussian(rng, r * cols);
  std::vector<double> w(rows * cols, 0.0);
  for (size_t i = 0; i < rows; ++i)
    for (size_t k = 0; k < r; ++k)
      for (size_t j = 0; j < cols; ++j) w[i * cols + j] += a[i * r + k] * b[k * cols + j];
  return w;
}

// The numpy reference (scripts/spectrum_reference.py) with `args`: a file, or --alpha-of a JSON.
test::CommandResult run_reference(const std::string& args) {
  return run_shell(std::string(kPython) + " " +
                   quoted(fs::path(MA_SOURCE_DIR) / "scripts" / "spectrum_reference.py") + " " + args);
}

class SpectrumNumpy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    test::NormalRng rng(2026);
    std::vector<TensorToWrite> t;
    for (size_t r : {5, 17, 64}) {
      const std::vector<double> w = planted(rng, 512, 512, r);
      t.push_back({"planted" + std::to_string(r) + ".f32", DType::F32, {512, 512}, test::f32_bytes(w)});
      t.push_back({"planted" + std::to_string(r) + ".bf16", DType::BF16, {512, 512}, test::bf16_bytes(w)});
    }
    t.push_back({"rect.f32", DType::F32, {300, 700}, test::f32_bytes(gaussian(rng, 300 * 700))});
    t.push_back({"model.layers.0.mlp.experts.gate_up_proj",
                 DType::BF16,
                 {2, 64, 96},
                 test::bf16_bytes(gaussian(rng, 2 * 64 * 96))});
    t.push_back(
        {"model.layers.0.mixer.conv1d.weight", DType::F32, {8, 1, 4}, test::f32_bytes(gaussian(rng, 8 * 4))});
    t.push_back({"norm.f32", DType::F32, {512}, test::f32_bytes(gaussian(rng, 512))});
    t.push_back({"conv.f32", DType::F32, {8, 4, 3, 3}, test::f32_bytes(gaussian(rng, 8 * 4 * 9))});
    write_safetensors(file(), t);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static fs::path file() { return dir_->path() / "planted.safetensors"; }

  void SetUp() override {
    if (!test::python_imports("numpy")) GTEST_SKIP() << kPython << " with numpy is not installed";
    if (run_cli_json("").exit_code == 10) GTEST_SKIP() << "no LAPACK: apt-get install libopenblas0-pthread";
  }

  static test::CommandResult run_cli_json(const std::string& extra) {
    return test::run_cli("spectrum " + quoted(file()) + " --json --values" + extra);
  }

  // name -> tensor object of `text` (ours: tensors[]; the reference: tensors{}).
  static std::map<std::string, const json::Value*> by_name(const json::Value& tensors) {
    std::map<std::string, const json::Value*> out;
    if (tensors.is_array())
      for (const json::Value& t : tensors.items()) out[std::string(t.find("name")->as_string())] = &t;
    else
      for (const json::Member& m : tensors.members()) out[std::string(m.key)] = &m.value;
    return out;
  }

  static json::Document parse(std::string text, const char* what) {
    json::Limits limits;
    limits.max_bytes = 1ull << 28;
    return json::Document::parse(std::move(text), what, limits);
  }

  // spectrum --json and the reference on the fixture's file, parsed; a fatal failure when either fails.
  static void run_both(std::optional<json::Document>& ours, std::optional<json::Document>& ref) {
    const test::CommandResult o = run_cli_json("");
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const test::CommandResult r = run_reference(quoted(file()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ours.emplace(parse(o.out, "spectrum --json"));
    ref.emplace(parse(r.out, "reference"));
  }

  static test::TempDir* dir_;
};
test::TempDir* SpectrumNumpy::dir_ = nullptr;

std::vector<double> numbers(const json::Value* v) {
  std::vector<double> out;
  if (v && v->is_array())
    for (const json::Value& x : v->items()) out.push_back(x.as_double());
  return out;
}

// How many of the singular values `s` exceed `threshold`.
uint64_t spectrum_numpy_count_above(const std::vector<double>& s, double threshold) {
  return static_cast<uint64_t>(std::count_if(s.begin(), s.end(), [&](double v) { return v > threshold; }));
}

// What a count of σ above a threshold may be for a program whose σ are within `sigma_error` of the
// reference's `s` and whose threshold lies in [threshold_low, threshold_high]: at least the σ above the whole
// range, at most those not below it. A σ that close to the threshold may fall on either side of it; where
// none does, the two are equal and the count is exact.
struct SpectrumNumpyCountRange {
  uint64_t low = 0, high = 0;
};
SpectrumNumpyCountRange spectrum_numpy_count_range(const std::vector<double>& s, double threshold_low,
                                                   double threshold_high, double sigma_error) {
  return {spectrum_numpy_count_above(s, threshold_high + sigma_error),
          spectrum_numpy_count_above(s, threshold_low - sigma_error)};
}

TEST_F(SpectrumNumpy, FullSvdEqualsLapackInFloat64) {
  std::optional<json::Document> our_doc, ref_doc;
  ASSERT_NO_FATAL_FAILURE(run_both(our_doc, ref_doc));
  auto o = by_name(*our_doc->root().find("tensors"));
  auto r = by_name(*ref_doc->root().find("tensors"));
  // Every matrix and only matrices: each stacked expert is one, the vector is none, and the kernels (a 3-D
  // conv1d, a 4-D conv) are skipped with a reason.
  EXPECT_EQ(o.size(), r.size());
  EXPECT_EQ(o.size(), 9u);
  EXPECT_EQ(o.count("model.layers.0.mlp.experts.gate_up_proj[1]"), 1u);
  const auto& skipped = our_doc->root().find("skipped")->items();
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].as_string(), "model.layers.0.mixer.conv1d.weight: 3-D, not a matrix");
  EXPECT_EQ(skipped[1].as_string(), "conv.f32: 4-D, not a matrix");
  for (const auto& [name, ref_t] : r) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(o.count(name));
    const json::Value& t = *o[name];
    const std::vector<double> s = numbers(t.find("singular_values")),
                              s_ref = numbers(ref_t->find("singular_values"));
    ASSERT_EQ(s.size(), s_ref.size());
    // sgesdd's backward error bounds |σ_i − σ_i(exact)| by a small multiple of ε_f32·σ_max: compare
    // normwise. The planted 512 x 512 matrices hold to 1e-6; the 300 x 700 rectangle to 2e-6.
    const double tol = (name == "rect.f32" ? 2e-6 : 1e-6) * s_ref.front();
    for (size_t i = 0; i < s.size(); ++i) ASSERT_NEAR(s[i], s_ref[i], tol) << "σ_" << i;
    const auto integer = [&](const char* key) { return t.find(key)->as_uint().value_or(UINT64_MAX); };
    const json::Value* reference = ref_t;  // clang 14 captures no structured binding
    const auto ref_integer = [&](const char* key) {
      return reference->find(key)->as_uint().value_or(UINT64_MAX - 1);
    };
    // actual_rank: numpy.linalg.matrix_rank's rule, σ > σ_max·max(m, n)·ε_f32, for every stored dtype. Our σ
    // are float32 sgesdd's, within `tol` of the reference's (asserted above), and so is our threshold (σ_max
    // times max(m, n)·ε_f32): where no σ lies that close to it, the rank is the reference's exactly; else it
    // is between the σ clearly above and those not clearly below — as is numpy's own matrix_rank of the
    // float32 matrix.
    const double rank_tolerance = ref_t->find("rank_tolerance")->as_double();
    const SpectrumNumpyCountRange rank =
        spectrum_numpy_count_range(s_ref, rank_tolerance, rank_tolerance, tol * (1 + 1e-3));
    EXPECT_GE(integer("actual_rank"), rank.low);
    EXPECT_LE(integer("actual_rank"), rank.high);
    EXPECT_GE(ref_integer("numpy_matrix_rank"), rank.low);
    EXPECT_LE(ref_integer("numpy_matrix_rank"), rank.high);
    if (rank.low == rank.high) {
      EXPECT_EQ(integer("actual_rank"), ref_integer("actual_rank"));
      EXPECT_EQ(ref_integer("numpy_matrix_rank"), ref_integer("actual_rank"));
    }
    // storage_rank: only for a float narrower than float32 (here BF16), σ above u/(1-u)·‖|W|‖₂ (+
    // subnormals). The reference takes ‖|W|‖₂ exactly (numpy's 2-norm of |W|); ours is an upper bound within
    // 0.1 % of it.
    if (ref_t->find("storage_tolerance")->is_null()) {
      EXPECT_TRUE(t.find("storage_tolerance")->is_null());
      EXPECT_TRUE(t.find("storage_rank")->is_null());
      EXPECT_TRUE(t.find("storage_rank_lower_bound")->is_null());
    } else {
      const double storage_tolerance = ref_t->find("storage_tolerance")->as_double();
      ASSERT_TRUE(t.find("storage_tolerance")->is_number());
      EXPECT_GE(t.find("storage_tolerance")->as_double(), storage_tolerance * (1 - 1e-4));
      EXPECT_LE(t.find("storage_tolerance")->as_double(), storage_tolerance * 1.001);
      const SpectrumNumpyCountRange storage = spectrum_numpy_count_range(
          s_ref, storage_tolerance * (1 - 1e-4), storage_tolerance * 1.001, tol * (1 + 1e-3));
      EXPECT_GE(integer("storage_rank"), storage.low);
      EXPECT_LE(integer("storage_rank"), storage.high);
      if (storage.low == storage.high) {
        EXPECT_EQ(integer("storage_rank"), ref_integer("storage_rank"));
      }
      EXPECT_LE(integer("storage_rank"), integer("actual_rank")) << "rounding only adds to numpy's tolerance";
    }
    EXPECT_EQ(integer("svd_90_percent_rank"), ref_integer("svd_90_percent_rank"));
    for (const char* key : {"stable_rank", "spectral_norm", "frobenius_norm", "rank_tolerance"})
      EXPECT_NEAR(t.find(key)->as_double(), ref_t->find(key)->as_double(),
                  1e-5 * ref_t->find(key)->as_double())
          << key;
    // The entropy sums over every σ, the hundreds of rounding-level ones of a planted F32 matrix included:
    // float32's noise there (σ ~ 1e-7·σ_max, each off by its own size) moves it by a few 1e-5.
    EXPECT_NEAR(t.find("effective_rank")->as_double(), ref_t->find("effective_rank")->as_double(),
                1e-4 * ref_t->find("effective_rank")->as_double());
    if (name.starts_with("planted")) {
      // F32 keeps the planted rank. BF16's rounding (up to 2^-8 of each value) lifts hundreds of σ above
      // float32's tolerance, which numpy's matrix_rank counts, as actual_rank does; the storage rank sees
      // through the rounding to the planted rank. Either way the matrix is rank-deficient: no finite
      // condition number.
      const uint64_t planted = std::stoull(name.substr(7, name.find('.') - 7));
      if (name.ends_with(".f32")) {
        EXPECT_EQ(integer("actual_rank"), planted);
      } else {
        EXPECT_GT(integer("actual_rank"), planted + 100);
        EXPECT_LT(integer("actual_rank"), integer("design_rank"));
        EXPECT_EQ(integer("storage_rank"), planted);
        EXPECT_EQ(ref_integer("storage_rank"), planted) << "the reference recovers it too";
      }
      EXPECT_TRUE(t.find("condition_number")->is_null());
    } else {
      // Gaussian: full rank by numpy's rule and, far above BF16's rounding, by the storage rule.
      EXPECT_EQ(integer("actual_rank"), integer("design_rank"));
      if (!t.find("storage_rank")->is_null()) {
        EXPECT_EQ(integer("storage_rank"), integer("design_rank"));
      }
      EXPECT_NEAR(t.find("condition_number")->as_double(), ref_t->find("condition_number")->as_double(),
                  1e-4 * ref_t->find("condition_number")->as_double());
    }
  }
}

// The reference's own alpha, from numpy's float64 SVD and the same eigenvalue filter (σ² > 1e-5, σ above the
// rank tolerance), agrees with ours: the filter is the rule, not something the test applies for us.
TEST_F(SpectrumNumpy, AlphaOfTheIndependentSpectrumAgrees) {
  std::optional<json::Document> our_doc, ref_doc;
  ASSERT_NO_FATAL_FAILURE(run_both(our_doc, ref_doc));
  auto o = by_name(*our_doc->root().find("tensors"));
  size_t fitted = 0;
  for (const auto& [name, ref_t] : by_name(*ref_doc->root().find("tensors"))) {
    if (!o.count(name) || o[name]->find("alpha") == nullptr) continue;
    SCOPED_TRACE(name);
    const json::Value& a = *o[name]->find("alpha");
    const json::Value& b = *ref_t->find("alpha");
    ASSERT_EQ(a.is_null(), b.is_null());
    if (a.is_null()) continue;
    EXPECT_NEAR(a.as_double(), b.as_double(), 1e-3 * b.as_double());
    ++fitted;
  }
  EXPECT_GE(fitted, 5u);
}

// α of the same spectrum as the powerlaw package computes it (the reference's reimplementation, given our
// singular values): within the 0.02, and in fact to rounding. The reference is given the eigenvalues
// WeightWatcher fits, σ² > 1e-5 (its EVALS_THRESH), of the σ above our rank tolerance (below it a planted
// F32 matrix's σ are float32 rounding noise, which the fit once took for its tail).
TEST_F(SpectrumNumpy, AlphaEqualsThePowerlawFitOfTheSameSpectrum) {
  test::TempDir tmp;
  auto ours = run_cli_json("");
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  {
    const json::Document doc = parse(ours.out, "spectrum --json");
    std::string kept = "{\"tensors\": [";
    for (const json::Value& t : doc.root().find("tensors")->items()) {
      if (kept.back() != '[') kept += ", ";
      kept += "{\"name\": \"" + std::string(t.find("name")->as_string()) + "\", \"singular_values\": [";
      const double tolerance = t.find("rank_tolerance")->as_double();
      bool first = true;
      for (double sigma : numbers(t.find("singular_values"))) {
        if (!(sigma > tolerance && sigma * sigma > 1e-5)) continue;
        char digits[32];
        std::snprintf(digits, sizeof digits, "%.17g", sigma);
        kept += (first ? "" : ", ") + std::string(digits);
        first = false;
      }
      kept += "]}";
    }
    test::write_file(tmp / "ours.json", kept + "]}");
  }
  auto ref = run_reference("--alpha-of " + quoted(tmp / "ours.json"));
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  const json::Document our_doc = parse(ours.out, "spectrum --json"), ref_doc = parse(ref.out, "reference");
  auto o = by_name(*our_doc.root().find("tensors"));
  size_t compared = 0;
  for (const auto& [name, ref_t] : by_name(*ref_doc.root().find("tensors"))) {
    SCOPED_TRACE(name);
    ASSERT_FALSE(ref_t->find("alpha")->is_null());
    EXPECT_NEAR(o[name]->find("alpha")->as_double(), ref_t->find("alpha")->as_double(), 0.02);
    EXPECT_NEAR(o[name]->find("alpha")->as_double(), ref_t->find("alpha")->as_double(), 1e-9);
    EXPECT_DOUBLE_EQ(o[name]->find("alpha_xmin")->as_double(), ref_t->find("alpha_xmin")->as_double());
    ++compared;
  }
  EXPECT_EQ(compared, 9u);
}

// Σσ² is ‖W‖²_F, and ‖W‖_F is the l2_norm `stats` reports for the same tensor.
TEST_F(SpectrumNumpy, EnergyEqualsTheFrobeniusNormOfStats) {
  auto ours = run_cli_json("");
  auto stats = test::run_cli("stats " + quoted(file()) + " --json");
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const json::Document our_doc = parse(ours.out, "spectrum"), stats_doc = parse(stats.out, "stats");
  auto st = by_name(*stats_doc.root().find("tensors"));
  for (const auto& [name, t] : by_name(*our_doc.root().find("tensors"))) {
    if (name.ends_with("]")) continue;  // stats reports the stacked tensor whole
    SCOPED_TRACE(name);
    double sum_sq = 0;
    for (double s : numbers(t->find("singular_values"))) sum_sq += s * s;
    const double l2 = st[name]->find("l2_norm")->as_double();
    EXPECT_NEAR(std::sqrt(sum_sq), l2, 1e-6 * l2);
  }
}

// The Gram path: every σ above its stated resolution agrees with the full SVD, and the planted ranks hold.
TEST_F(SpectrumNumpy, GramPathAgreesAboveItsResolution) {
  auto full = run_cli_json(""), gram = run_cli_json(" --method gram");
  ASSERT_EQ(gram.exit_code, 0) << gram.err;
  const json::Document full_doc = parse(full.out, "svd"), gram_doc = parse(gram.out, "gram");
  EXPECT_EQ(gram_doc.root().find("method")->as_string(), "gram");
  auto f = by_name(*full_doc.root().find("tensors"));
  for (const auto& [name, t] : by_name(*gram_doc.root().find("tensors"))) {
    SCOPED_TRACE(name);
    const std::vector<double> s = numbers(t->find("singular_values")),
                              s_full = numbers(f[name]->find("singular_values"));
    const double resolution = t->find("gram_resolution")->as_double();
    EXPECT_NEAR(resolution,
                std::sqrt(std::min(t->find("rows")->as_double(), t->find("cols")->as_double()) *
                          1.1920928955078125e-07) *
                    s_full.front(),
                1e-3 * resolution);
    for (size_t i = 0; i < s.size(); ++i)
      if (s_full[i] > 10 * resolution) {
        EXPECT_NEAR(s[i], s_full[i], 1e-4 * s_full[i]) << "σ_" << i;
      }
    // The rank counts σ above max(numpy's tolerance, the resolution): the full SVD's σ above it (none lies
    // near it). A planted BF16 matrix's rounding σ, counted by the full SVD, are far below the resolution;
    // its planted σ far above, and so is the storage rank the full SVD's.
    EXPECT_EQ(t->find("actual_rank")->as_uint(),
              spectrum_numpy_count_above(s_full, t->find("rank_tolerance")->as_double()));
    if (!(name.starts_with("planted") && name.ends_with(".bf16"))) {
      EXPECT_EQ(t->find("actual_rank")->as_uint(), f[name]->find("actual_rank")->as_uint());
    }
    EXPECT_EQ(t->find("storage_rank")->as_uint(), f[name]->find("storage_rank")->as_uint());
  }
}

// --rank-k: the top K by randomized SVD. Where the spectrum ends inside K the figures are exact; where it
// does not, rank and 90% rank are null with the lower bound K, never K itself.
TEST_F(SpectrumNumpy, TruncatedSpectrumGivesBoundsNotValues) {
  auto full = run_cli_json(""), top = run_cli_json(" --rank-k 32");
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const json::Document full_doc = parse(full.out, "svd"), top_doc = parse(top.out, "top");
  auto f = by_name(*full_doc.root().find("tensors"));
  auto k = by_name(*top_doc.root().find("tensors"));
  // Rank 5 and 17 end inside K = 32: their top σ agree with the full SVD, their ranks are exact — F32's
  // actual_rank, BF16's storage_rank (its actual_rank counts the rounding's σ too, hundreds: beyond K).
  for (const auto& [name, rank_key] :
       {std::pair{"planted5.f32", "actual_rank"}, std::pair{"planted17.bf16", "storage_rank"}}) {
    SCOPED_TRACE(name);
    const std::vector<double> s = numbers(k[name]->find("singular_values")),
                              s_full = numbers(f[name]->find("singular_values"));
    ASSERT_EQ(s.size(), 32u);
    const uint64_t r = f[name]->find(rank_key)->as_uint().value();
    ASSERT_LT(r, 32u);
    for (size_t i = 0; i < r; ++i) EXPECT_NEAR(s[i], s_full[i], 1e-4 * s_full[i]);
    EXPECT_EQ(k[name]->find(rank_key)->as_uint(), r);
    EXPECT_EQ(k[name]->find("svd_90_percent_rank")->as_uint(),
              f[name]->find("svd_90_percent_rank")->as_uint());
  }
  // The BF16 matrix's 32 σ (its rounding's σ_18..σ_32 are ~0.3, numpy's tolerance 0.04) all count: its
  // actual_rank is the lower bound K.
  EXPECT_TRUE(k["planted17.bf16"]->find("actual_rank")->is_null());
  EXPECT_EQ(k["planted17.bf16"]->find("actual_rank_lower_bound")->as_uint(), 32u);
  // Rank 64 does not: bounds.
  const json::Value& p64 = *k["planted64.f32"];
  EXPECT_TRUE(p64.find("actual_rank")->is_null());
  EXPECT_EQ(p64.find("actual_rank_lower_bound")->as_uint(), 32u);
  EXPECT_TRUE(p64.find("svd_90_percent_rank")->is_null());
  EXPECT_EQ(p64.find("svd_90_percent_rank_lower_bound")->as_uint(), 32u);
  EXPECT_TRUE(p64.find("effective_rank")->is_null());
  EXPECT_TRUE(p64.find("alpha")->is_null());
  EXPECT_GT(p64.find("randomized_error_factor")->as_double(), 1.0);
  // A sketch's σ never exceed the true ones.
  const std::vector<double> s = numbers(p64.find("singular_values")),
                            s_full = numbers(f["planted64.f32"]->find("singular_values"));
  for (size_t i = 0; i < s.size(); ++i) EXPECT_LE(s[i], s_full[i] * (1 + 1e-5)) << "σ_" << i;
  // The console says "≥ 32", the CSV leaves the rank empty and fills the bound.
  auto console = test::run_cli("spectrum " + quoted(file()) + " --rank-k 32");
  EXPECT_NE(console.out.find("≥ 32/512"), std::string::npos) << console.out;
}

// A block-FP8 weight is analysed as W = code x the scale of its block (rows and columns no multiple of the
// 128 blocks), against the reference's own dequantization; its scale is skipped as no weight matrix.
TEST(SpectrumFloat8, BlockScaledWeightsAreTheirValuesNotTheirCodes) {
  if (!test::python_imports("numpy")) GTEST_SKIP() << kPython << " with numpy is not installed";
  test::TempDir dir;
  uint64_t state = 7;
  auto next = [&state] { return (state = state * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  std::string codes(300 * 200, '\0');
  for (char& c : codes) c = static_cast<char>((next() % 0x7f) | (next() & 1 ? 0x80 : 0));  // never NaN
  std::vector<double> scales(3 * 2);
  for (size_t i = 0; i < scales.size(); ++i) scales[i] = std::ldexp(1.0, -static_cast<int>(i) - 4);
  write_safetensors(dir / "fp8.safetensors",
                    {{"w.weight", DType::F8_E4M3, {300, 200}, codes},
                     {"w.weight_scale_inv", DType::F32, {3, 2}, test::f32_bytes(scales)}});
  auto ours = test::run_cli("spectrum " + quoted(dir / "fp8.safetensors") + " --json --values");
  if (ours.exit_code == 10) GTEST_SKIP() << "no LAPACK: apt-get install libopenblas0-pthread";
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  auto ref = run_reference(quoted(dir / "fp8.safetensors"));
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  const json::Document our_doc = json::Document::parse(ours.out, "ours");
  const json::Document ref_doc = json::Document::parse(ref.out, "reference");
  const auto& tensors = our_doc.root().find("tensors")->items();
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].find("scaled_by")->as_string(), "w.weight_scale_inv");
  const json::Value* want = ref_doc.root().find("tensors")->find("w.weight");
  ASSERT_NE(want, nullptr);
  const std::vector<double> s = numbers(tensors[0].find("singular_values")),
                            s_ref = numbers(want->find("singular_values"));
  ASSERT_EQ(s.size(), s_ref.size());
  for (size_t i = 0; i < s.size(); ++i) ASSERT_NEAR(s[i], s_ref[i], 2e-6 * s_ref.front()) << "σ_" << i;
  // numpy's matrix_rank of the float32 values: random codes times their block scales are full rank (σ_min is
  // hundreds of times the tolerance), FP8 or not.
  EXPECT_EQ(tensors[0].find("actual_rank")->as_uint(), want->find("actual_rank")->as_uint());
  EXPECT_EQ(want->find("actual_rank")->as_uint(), 200u);
  EXPECT_EQ(want->find("numpy_matrix_rank")->as_uint(), 200u);
  // The storage rank: σ above u/(1-u)·‖|W|‖₂ (u = 2^-4 for E4M3) plus the subnormals' share, times the
  // largest scale; ours bounds ‖|W|‖₂ within 0.1 % above the reference's exact figure, and counts the σ the
  // reference does but those within that margin (and σ's error) of the threshold.
  ASSERT_TRUE(want->find("storage_tolerance")->is_number());
  const double storage_tolerance = want->find("storage_tolerance")->as_double();
  ASSERT_TRUE(tensors[0].find("storage_tolerance")->is_number());
  EXPECT_GE(tensors[0].find("storage_tolerance")->as_double(), storage_tolerance * (1 - 1e-4));
  EXPECT_LE(tensors[0].find("storage_tolerance")->as_double(), storage_tolerance * 1.001);
  const SpectrumNumpyCountRange storage = spectrum_numpy_count_range(
      s_ref, storage_tolerance * (1 - 1e-4), storage_tolerance * 1.001, 2e-6 * s_ref.front());
  const uint64_t storage_rank = tensors[0].find("storage_rank")->as_uint().value_or(UINT64_MAX);
  EXPECT_GE(storage_rank, storage.low);
  EXPECT_LE(storage_rank, storage.high);
  if (storage.low == storage.high) {
    EXPECT_EQ(storage_rank, want->find("storage_rank")->as_uint());
  }
  EXPECT_LT(storage_rank, 200u) << "FP8's rounding (1/16 of each value) can hide the smaller σ";
  const auto& skipped = our_doc.root().find("skipped")->items();
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0].as_string(), "w.weight_scale_inv: a quantization scale, not a weight matrix");
}

}  // namespace
}  // namespace ma
