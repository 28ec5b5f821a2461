// `spectrum`'s actual_rank is seed 004's numerical rank, numpy.linalg.matrix_rank on the weights as stored
// (upcast to float32, the dtype the SVD runs in): σ > σ_max·max(m, n)·ε_f32 whatever the stored dtype. It
// was u·‖W‖_F for BF16 / F16 / FP8 (a bound on ‖E‖_F, ~√n too large for ‖E‖₂): a Gaussian 512 x 512 BF16
// matrix came out rank ~480 where numpy says 512, and the FP8 fixture's down_proj rank 109, under its own
// 90 %-energy rank 171. The storage-precision figure is storage_rank, with a sound ‖E‖₂ bound
// (u/(1-u)·‖|W|‖₂): a planted rank 3 stored in BF16 is storage_rank 3. Checked by hand-worked spectra (no
// LAPACK), exact constructions, and numpy's matrix_rank computed in the test by /usr/bin/python3 (skipping,
// visibly, without numpy or LAPACK).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "analysis/model_weight_stats.h"
#include "analysis/spectrum/model_spectrum.h"
#include "analysis/spectrum/spectral_metrics.h"
#include "core/error.h"
#include "core/json.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "lapack_test_support.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

constexpr double kRankRuleEpsF32 = 1.1920928955078125e-07;

std::vector<double> rank_rule_gaussian(test::NormalRng& rng, size_t n, double scale) {
  std::vector<double> v(n);
  for (double& x : v) x = scale * rng();
  return v;
}

// A B with A rows x r and B r x cols Gaussian: rank r exactly before rounding.
std::vector<double> rank_rule_planted(test::NormalRng& rng, size_t rows, size_t cols, size_t r) {
  const std::vector<double> a = rank_rule_gaussian(rng, rows * r, 1),
                            b = rank_rule_gaussian(rng, r * cols, 1);
  std::vector<double> w(rows * cols, 0.0);
  for (size_t i = 0; i < rows; ++i)
    for (size_t k = 0; k < r; ++k)
      for (size_t j = 0; j < cols; ++j) w[i * cols + j] += a[i * r + k] * b[k * cols + j];
  return w;
}

// ‖|W|‖₂ by many power iterations (the Rayleigh quotient converges from below).
double rank_rule_abs_norm_reference(const std::vector<float>& w, uint64_t rows, uint64_t cols) {
  std::vector<double> x(cols, 1.0), y(rows), z(cols);
  double estimate = 0;
  for (int step = 0; step < 3000; ++step) {
    for (uint64_t i = 0; i < rows; ++i) {
      y[i] = 0;
      for (uint64_t j = 0; j < cols; ++j) y[i] += std::fabs(double(w[i * cols + j])) * x[j];
    }
    double xx = 0, xz = 0, zz = 0;
    for (uint64_t j = 0; j < cols; ++j) {
      z[j] = 0;
      for (uint64_t i = 0; i < rows; ++i) z[j] += std::fabs(double(w[i * cols + j])) * y[i];
    }
    for (uint64_t j = 0; j < cols; ++j) {
      xx += x[j] * x[j];
      xz += x[j] * z[j];
      zz += z[j] * z[j];
    }
    estimate = std::sqrt(xz / xx);
    for (uint64_t j = 0; j < cols; ++j) x[j] = z[j] / std::sqrt(zz);
  }
  return estimate;
}

// σ = 10, 1, 0.01 of a 3 x 3 BF16 matrix: numpy's tolerance is 10·3·ε_f32 = 3.6e-6, so rank 3 (the old rule,
// u·‖W‖_F = 0.039, said 2). The storage rank drops σ = 0.01, which BF16's rounding of a matrix whose |W| has
// norm 10 (‖E‖₂ <= 0.039) could have made.
TEST(SpectrumRankRule, ActualRankIsNumpysRuleWhateverTheStoredDtype) {
  SingularValues sv;
  sv.values = {10, 1, 0.01};
  MetricInputs in;
  in.rows = 3;
  in.cols = 3;
  in.frobenius_squared = 101.0001;
  in.storage_roundoff = std::ldexp(1.0, -8);
  in.abs_spectral_norm = 10;
  const SpectralMetrics m = spectral_metrics(sv, in);
  EXPECT_DOUBLE_EQ(m.tolerance, 10 * 3 * kRankRuleEpsF32);
  EXPECT_EQ(m.actual_rank, 3u);
  EXPECT_TRUE(m.condition_number) << "full numerical rank: σ_max / σ_min is finite";
  ASSERT_TRUE(m.storage_tolerance);
  const double u = std::ldexp(1.0, -8);
  EXPECT_DOUBLE_EQ(*m.storage_tolerance, u / (1 - u) * 10);
  EXPECT_EQ(m.storage_rank, 2u);

  // --rank-tol still sets actual_rank's tolerance, and not the storage one.
  in.tolerance = 5.0;
  const SpectralMetrics given = spectral_metrics(sv, in);
  EXPECT_EQ(given.actual_rank, 1u);
  EXPECT_EQ(given.storage_rank, 2u);

  // float32 and wider (no storage roundoff): no storage rank.
  MetricInputs f32 = in;
  f32.tolerance.reset();
  f32.storage_roundoff = 0;
  const SpectralMetrics wide = spectral_metrics(sv, f32);
  EXPECT_EQ(wide.actual_rank, 3u);
  EXPECT_FALSE(wide.storage_tolerance);
  EXPECT_FALSE(wide.storage_rank);
}

// A truncated spectrum whose every σ is above the storage tolerance gives a lower bound, as actual_rank does.
TEST(SpectrumRankRule, TruncatedSpectrumGivesAStorageRankLowerBound) {
  SingularValues sv;
  sv.values = {4, 3};
  sv.complete = false;
  MetricInputs in;
  in.rows = 5;
  in.cols = 8;
  in.frobenius_squared = 30;
  in.storage_roundoff = std::ldexp(1.0, -8);
  in.abs_spectral_norm = 5;
  const SpectralMetrics m = spectral_metrics(sv, in);
  EXPECT_FALSE(m.storage_rank);
  EXPECT_EQ(m.storage_rank_lower_bound, 2u);
}

// The bound on ‖|W|‖₂: exact for |W| of rank 1 (u vᵀ with signs: |W| = |u||v|ᵀ, norm ‖u‖‖v‖), never below
// the true norm and within 0.1 % of it on a Gaussian and on a matrix with a zero column; 0 for zeros.
TEST(SpectrumRankRule, AbsSpectralNormBoundIsAnUpperBoundAndTight) {
  const std::vector<double> u = {1, -2, 3, 0.5}, v = {-1, 4, 2};
  std::vector<float> w;
  for (double a : u)
    for (double b : v) w.push_back(static_cast<float>(a * b));
  double nu = 0, nv = 0;
  for (double a : u) nu += a * a;
  for (double b : v) nv += b * b;
  const double exact = std::sqrt(nu * nv);
  const double rank_one = abs_spectral_norm_bound(w.data(), 4, 3);
  EXPECT_GE(rank_one, exact);
  EXPECT_LE(rank_one, exact * (1 + 1e-6));

  test::NormalRng rng(11);
  std::vector<float> g(64 * 48);
  for (float& x : g) x = static_cast<float>(rng());
  for (uint64_t i = 0; i < 64; ++i) g[i * 48 + 5] = 0;  // a zero column
  const double reference = rank_rule_abs_norm_reference(g, 64, 48);
  const double bound = abs_spectral_norm_bound(g.data(), 64, 48);
  EXPECT_GE(bound, reference * (1 - 1e-12));
  EXPECT_LE(bound, reference * 1.001);

  const std::vector<float> zeros(12, 0.0f);
  EXPECT_EQ(abs_spectral_norm_bound(zeros.data(), 3, 4), 0.0);
}

// numpy's answer for every matrix of a safetensors file: matrix_rank of the float32 values (BF16 upcast; an
// F8_E4M3 weight times its block scale_inv, in float32, as the reference dequantization does), and the
// counts of its σ above 1.001 and 0.999 of the tolerance (a σ that close is float32 noise either way).
constexpr const char* kRankRuleNumpyScript = R"PY(
import json, struct, sys
import numpy as np
b = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', b[:8])[0]
hdr = json.loads(b[8:8 + n])
base = 8 + n
def raw(name):
    s, e = hdr[name]['data_offsets']
    return b[base + s:base + e]
def e4m3(c):
    c = c.astype(np.int64)
    s = np.where(c & 0x80, -1.0, 1.0); e = (c >> 3) & 0xF; m = c & 7
    return s * np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7))
out = {}
for name, t in hdr.items():
    if name == '__metadata__' or len(t['shape']) != 2 or name.endswith('_scale_inv'):
        continue
    shape, dt = t['shape'], t['dtype']
    if dt == 'BF16':
        w = (np.frombuffer(raw(name), np.uint16).astype(np.uint32) << 16).view(np.float32).reshape(shape)
    elif dt == 'F32':
        w = np.frombuffer(raw(name), np.float32).reshape(shape)
    elif dt == 'F8_E4M3' and name + '_scale_inv' in hdr:
        sc = np.frombuffer(raw(name + '_scale_inv'), np.float32).reshape(hdr[name + '_scale_inv']['shape'])
        r, c = shape
        full = np.repeat(np.repeat(sc, -(-r // sc.shape[0]), 0), -(-c // sc.shape[1]), 1)[:r, :c]
        w = (e4m3(np.frombuffer(raw(name), np.uint8).reshape(shape)).astype(np.float32) * full).astype(np.float32)
    else:
        continue
    s = np.linalg.svd(w, compute_uv=False)
    tol = s.max() * max(shape) * np.finfo(np.float32).eps
    out[name] = {'rank': int(np.linalg.matrix_rank(w)), 'low': int((s > tol * 1.001).sum()),
                 'high': int((s > tol * 0.999).sum())}
print(json.dumps(out))
)PY";

struct RankRuleNumpy {
  uint64_t rank = 0, low = 0, high = 0;
};

std::map<std::string, RankRuleNumpy> rank_rule_numpy(const fs::path& file, const test::TempDir& dir) {
  test::write_file(dir / "rank_rule.py", kRankRuleNumpyScript);
  const test::CommandResult r = test::run_shell(
      std::string(test::kPython) + " " + test::quoted(dir / "rank_rule.py") + " " + test::quoted(file));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, RankRuleNumpy> out;
  if (r.exit_code != 0) return out;
  const json::Document d = json::Document::parse(r.out, "rank_rule.py");
  for (const json::Member& m : d.root().members())
    out[std::string(m.key)] = {m.value.find("rank")->as_uint().value(),
                               m.value.find("low")->as_uint().value(),
                               m.value.find("high")->as_uint().value()};
  return out;
}

ModelSpectrum rank_rule_spectrum(const fs::path& file) {
  ModelWeightsInput in;
  in.model = locate_local_model(file.string());
  std::vector<std::string> warnings;
  const PlannedScan plan = plan_scan(in, StatsSelection{}, warnings);
  return compute_model_spectrum(plan, SpectrumOptions{});
}

// Each matrix's actual_rank is numpy's matrix_rank (where no σ sits within 0.1 % of the tolerance; else
// within the σ that do).
void rank_rule_expect_numpy_ranks(const ModelSpectrum& s, const std::map<std::string, RankRuleNumpy>& numpy) {
  size_t compared = 0;
  for (const MatrixSpectrum& m : s.matrices) {
    auto it = numpy.find(m.name);
    if (it == numpy.end()) continue;
    SCOPED_TRACE(m.name);
    ++compared;
    ASSERT_TRUE(m.metrics.actual_rank);
    const uint64_t ours = *m.metrics.actual_rank;
    if (it->second.low == it->second.high) {
      EXPECT_EQ(ours, it->second.rank) << "numpy.linalg.matrix_rank";
    }
    EXPECT_GE(ours, it->second.low);
    EXPECT_LE(ours, it->second.high);
    if (m.metrics.storage_rank) {
      EXPECT_LE(*m.metrics.storage_rank, ours);
    }
  }
  EXPECT_EQ(compared, numpy.size());
}

TEST(SpectrumRankRule, ActualRankEqualsNumpyMatrixRankOnBf16AndF32) {
  SKIP_WITHOUT_LAPACK();
  if (!test::python_imports("numpy")) GTEST_SKIP() << test::kPython << " with numpy is not installed";
  test::TempDir dir;
  test::NormalRng rng(2026);
  const fs::path file = dir / "rank_rule.safetensors";
  write_safetensors(
      file,
      {{"gauss.bf16", DType::BF16, {512, 512}, test::bf16_bytes(rank_rule_gaussian(rng, 512 * 512, 0.02))},
       {"planted3.bf16", DType::BF16, {256, 192}, test::bf16_bytes(rank_rule_planted(rng, 256, 192, 3))},
       {"planted3.f32", DType::F32, {256, 192}, test::f32_bytes(rank_rule_planted(rng, 256, 192, 3))},
       {"rect.f32", DType::F32, {100, 300}, test::f32_bytes(rank_rule_gaussian(rng, 100 * 300, 1))}});
  const ModelSpectrum s = rank_rule_spectrum(file);
  ASSERT_EQ(s.matrices.size(), 4u);
  std::map<std::string, const MatrixSpectrum*> by_name;
  for (const MatrixSpectrum& m : s.matrices) by_name[m.name] = &m;

  // A Gaussian stored in BF16 is full rank, as numpy and torch say (u·‖W‖_F made it ~480).
  const SpectralMetrics& gauss = by_name.at("gauss.bf16")->metrics;
  EXPECT_EQ(gauss.actual_rank, 512u);
  ASSERT_TRUE(gauss.storage_rank);
  EXPECT_LT(*gauss.storage_rank, 512u) << "BF16's worst-case rounding could hide the smallest σ";
  EXPECT_GT(*gauss.storage_rank, 400u);
  // A planted rank 3: float32 keeps it exactly; BF16's rounding raises the other σ above numpy's tolerance
  // (actual_rank counts them, as matrix_rank does), and the storage rank sees through the rounding.
  EXPECT_EQ(by_name.at("planted3.f32")->metrics.actual_rank, 3u);
  EXPECT_FALSE(by_name.at("planted3.f32")->metrics.storage_rank) << "float32: no storage rounding";
  EXPECT_GT(*by_name.at("planted3.bf16")->metrics.actual_rank, 3u);
  EXPECT_EQ(by_name.at("planted3.bf16")->metrics.storage_rank, 3u);
  EXPECT_EQ(by_name.at("rect.f32")->metrics.actual_rank, 100u);

  rank_rule_expect_numpy_ranks(s, rank_rule_numpy(file, dir));
}

// The block-FP8 fixture (W = codes x scale_inv): down_proj was rank 109 under its 90 %-energy rank 171; numpy
// says 256, and no matrix's rank is below its energy rank.
TEST(SpectrumRankRule, Fp8FixtureRankIsNumpysAndNeverBelowTheEnergyRank) {
  SKIP_WITHOUT_LAPACK();
  const std::optional<fs::path> data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is not here";
  const fs::path file = *data / "fixtures" / "tiny-qwen3-fp8" / "model.safetensors";
  if (!fs::exists(file)) GTEST_SKIP() << file << " is not here";
  const ModelSpectrum s = rank_rule_spectrum(file);
  bool saw_down_proj = false;
  for (const MatrixSpectrum& m : s.matrices) {
    SCOPED_TRACE(m.name);
    ASSERT_TRUE(m.metrics.actual_rank);
    ASSERT_TRUE(m.metrics.rank_90);
    EXPECT_GE(*m.metrics.actual_rank, *m.metrics.rank_90);
    if (m.name == "model.layers.0.mlp.down_proj.weight") {
      saw_down_proj = true;
      EXPECT_EQ(m.scaled_by, "model.layers.0.mlp.down_proj.weight_scale_inv");
      EXPECT_EQ(m.metrics.actual_rank, 256u);
      ASSERT_TRUE(m.metrics.storage_rank) << "FP8 is narrower than float32";
      EXPECT_LE(*m.metrics.storage_rank, 256u);
    }
  }
  EXPECT_TRUE(saw_down_proj);
  if (!test::python_imports("numpy")) GTEST_SKIP() << test::kPython << " with numpy is not installed";
  test::TempDir dir;
  rank_rule_expect_numpy_ranks(s, rank_rule_numpy(file, dir));
}

}  // namespace
}  // namespace ma
