// Exactness of `modelanalyzer stats` against an independent float64 numpy reference
// (scripts/stats_reference.py, which parses the safetensors file and decodes every dtype itself). Checkpoints
// covering every dtype the command reads, with zeros, -0.0, subnormals, NaN, ±Inf, constant, all-NaN,
// one-element, 0-D, empty, 2-D and 3-D tensors, plus one BF16 tensor of ~5 million elements, are written with
// our safetensors writer; both programs run on each file and every statistic of every tensor must agree:
// doubles within 1e-9 relative (1e-12 absolute near zero), counts and histogram counts exactly, null exactly
// where the reference has null. The same comparison runs on every real fixture checkpoint under
// ../shared/data/fixtures when present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/dtype.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using test::kPython;
constexpr const char* kStatsArgs = " --eps 1e-3 --bins 32";
constexpr double kRelTol = 1e-9;
constexpr double kAbsTol = 1e-12;

using test::quoted;
using test::run_shell;

// -----------------------------------------------------------------------------------------------------------
// Test data. A fixed-seed splitmix64 (not <random>'s distributions, whose output differs between standard
// libraries) so the files are the same everywhere; the reference reads the bytes anyway.

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }  // [0, 1)
  double normal() {                                                         // Box-Muller
    double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
  }
  // Weight-like: normal with a 1% heavy tail so kurtosis and the outer percentiles have something to show.
  double weight(double sigma) { return sigma * normal() * (next() % 100 == 0 ? 30.0 : 1.0); }

 private:
  uint64_t s_;
};

void put_le(std::string& out, uint64_t bits, int nbytes) {
  for (int i = 0; i < nbytes; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

// A binary floating-point format: sign, `ebits` exponent bits, `mbits` mantissa bits.
struct FloatFormat {
  DType dtype;
  int ebits, mbits, bias;
  uint64_t max_finite;  // bit pattern of the largest finite value
  bool ieee;            // all-ones exponent is Inf/NaN (F8_E4M3 has no Inf: only S.1111.111 is NaN)
  double sigma;         // spread of the random values, chosen so each format's range is exercised
  int bytes() const { return (1 + ebits + mbits) / 8; }
  uint64_t sign() const { return 1ull << (ebits + mbits); }
  uint64_t exp_ones() const { return ((1ull << ebits) - 1) << mbits; }
  uint64_t nan() const {
    return ieee ? exp_ones() | (1ull << (mbits - 1)) : exp_ones() | ((1ull << mbits) - 1);
  }
  uint64_t inf() const { return exp_ones(); }
};

// Encodes v by truncation toward zero (any encoding will do: the file's bits are the truth both programs
// read), saturating at the largest finite value; F32 and F64 go through the hardware.
uint64_t encode(const FloatFormat& f, double v) {
  if (f.dtype == DType::F64) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  if (f.dtype == DType::F32) {
    float x = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
  }
  uint64_t sign = std::signbit(v) ? f.sign() : 0;
  double a = std::fabs(v);
  if (a == 0) return sign;
  int e2;
  std::frexp(a, &e2);  // a = frac * 2^e2, frac in [0.5, 1)
  int field = e2 - 1 + f.bias;
  uint64_t mag;
  if (field >= 1) {
    double frac = std::ldexp(a, -(e2 - 1)) - 1.0;  // [0, 1)
    mag = (static_cast<uint64_t>(field) << f.mbits) | static_cast<uint64_t>(std::ldexp(frac, f.mbits));
    mag = std::min(mag, f.max_finite);
  } else {  // subnormal (or underflow to zero): a / 2^(1 - bias - mbits)
    mag = static_cast<uint64_t>(std::ldexp(a, f.bias - 1 + f.mbits));
  }
  return sign | mag;
}

const std::vector<FloatFormat>& float_formats() {
  static const std::vector<FloatFormat> k = {
      {DType::F64, 11, 52, 1023, 0x7fefffffffffffffull, true, 1.0},
      {DType::F32, 8, 23, 127, 0x7f7fffff, true, 0.02},
      {DType::F16, 5, 10, 15, 0x7bff, true, 0.05},
      {DType::BF16, 8, 7, 127, 0x7f7f, true, 0.02},
      {DType::F8_E4M3, 4, 3, 7, 0x7e, false, 1.0},
      {DType::F8_E5M2, 5, 2, 15, 0x7b, true, 1.0},
  };
  return k;
}

std::string tag(DType t) {
  return std::string(dtype_info(t).short_name);
}

// A tensor from bit patterns, `bytes` little-endian bytes each.
TensorToWrite from_bits(const std::string& name, DType dtype, Shape shape,
                        const std::vector<uint64_t>& bits) {
  EXPECT_EQ(bits.size(), numel(shape)) << name;
  int bytes = static_cast<int>(dtype_bits(dtype) / 8);
  std::string data;
  data.reserve(bits.size() * static_cast<size_t>(bytes));
  for (uint64_t b : bits) put_le(data, b, bytes);
  return {name, dtype, std::move(shape), std::move(data)};
}

void add_float_tensors(std::vector<TensorToWrite>& out, const FloatFormat& f, Rng& rng) {
  const std::string p = tag(f.dtype) + ".";
  auto random = [&](size_t n) {
    std::vector<uint64_t> v(n);
    for (auto& b : v) b = encode(f, rng.weight(f.sigma));
    return v;
  };
  // 2-D, random, with every special value the format has at spread-out positions: +0, -0, the smallest and
  // largest subnormals of both signs, NaN of both signs and ±Inf. None of them moves the finite moments much,
  // so the histogram stays informative.
  const uint64_t max_sub = (1ull << f.mbits) - 1;
  std::vector<uint64_t> specials = {
      0, f.sign(), 0, 0, 1, f.sign() | 1, max_sub, f.sign() | max_sub, f.nan(), f.sign() | f.nan(), f.nan()};
  if (f.ieee) specials.insert(specials.end(), {f.inf(), f.sign() | f.inf(), f.inf()});
  std::vector<uint64_t> m = random(96 * 130);
  for (size_t i = 0; i < specials.size(); ++i) m[i * 1021 % m.size()] = specials[i];
  out.push_back(from_bits(p + "random_2d", f.dtype, {96, 130}, m));
  out.push_back(from_bits(p + "random_3d", f.dtype, {5, 7, 11}, random(5 * 7 * 11)));
  out.push_back(from_bits(p + "random_1d", f.dtype, {1000}, random(1000)));
  // The extremes of the range (F64's own largest values are left out: their squares overflow float64 in m4,
  // where the reference reports null and a scaled implementation would not).
  std::vector<uint64_t> ext = random(40);
  double big = f.dtype == DType::F64 ? 1e60 : 0;
  ext[0] = f.dtype == DType::F64 ? encode(f, big) : f.max_finite;
  ext[1] = f.dtype == DType::F64 ? encode(f, -big) : f.sign() | f.max_finite;
  ext[2] = 1ull << f.mbits;  // smallest normal
  ext[3] = 1;
  out.push_back(from_bits(p + "extremes", f.dtype, {40}, ext));
  out.push_back(from_bits(p + "constant", f.dtype, {64}, std::vector<uint64_t>(64, encode(f, 1.5))));
  std::vector<uint64_t> zeros(17, 0);
  for (size_t i = 0; i < zeros.size(); i += 3) zeros[i] = f.sign();  // -0 among +0: still a constant zero
  out.push_back(from_bits(p + "zeros", f.dtype, {17}, zeros));
  out.push_back(from_bits(p + "all_nan", f.dtype, {33}, std::vector<uint64_t>(33, f.nan())));
  if (f.ieee)
    out.push_back(from_bits(p + "all_inf", f.dtype, {2, 3},
                            {f.inf(), f.sign() | f.inf(), f.inf(), f.inf(), f.inf(), f.sign() | f.inf()}));
  std::vector<uint64_t> nan_and_one(9, f.nan());
  nan_and_one[4] = encode(f, -3.25);
  out.push_back(from_bits(p + "nan_and_one", f.dtype, {9}, nan_and_one));
  out.push_back(from_bits(p + "one", f.dtype, {1}, {encode(f, -0.75)}));
  out.push_back(from_bits(p + "scalar", f.dtype, {}, {encode(f, 0.5)}));
  out.push_back(from_bits(p + "empty", f.dtype, {0, 4}, {}));
}

void add_e8m0_tensors(std::vector<TensorToWrite>& out, Rng& rng) {
  // F8_E8M0 (MX block scales): 2^(e - 127), no sign, no zero, no subnormals; 0xff is the only NaN.
  const DType t = DType::F8_E8M0;
  std::vector<uint64_t> v(64 * 48);
  for (auto& b : v) b = static_cast<uint64_t>(std::clamp(117 + static_cast<int>(rng.normal() * 4), 0, 254));
  const uint64_t specials[] = {0x00, 0xfe, 0xff, 0x7f, 0xff, 0x01};
  for (size_t i = 0; i < std::size(specials); ++i) v[i * 499] = specials[i];
  out.push_back(from_bits("f8_e8m0.random_2d", t, {64, 48}, v));
  std::vector<uint64_t> v3(3 * 4 * 5);
  for (auto& b : v3) b = 127 + rng.next() % 5 - 2;
  out.push_back(from_bits("f8_e8m0.random_3d", t, {3, 4, 5}, v3));
  out.push_back(from_bits("f8_e8m0.constant", t, {64}, std::vector<uint64_t>(64, 0x80)));
  out.push_back(from_bits("f8_e8m0.all_nan", t, {10}, std::vector<uint64_t>(10, 0xff)));
  out.push_back(from_bits("f8_e8m0.one", t, {1}, {0x70}));
  out.push_back(from_bits("f8_e8m0.empty", t, {0}, {}));
}

void add_int_tensors(std::vector<TensorToWrite>& out, DType t, bool is_signed, Rng& rng) {
  const std::string p = tag(t) + ".";
  const int bits = static_cast<int>(dtype_bits(t));
  const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  // Full range: every bit pattern is a valid value; for I64/U64 most are beyond 2^53, where the conversion to
  // float64 rounds (the contract's one inexact step, the same in both programs).
  std::vector<uint64_t> full(257);
  for (auto& b : full) b = rng.next() & mask;
  full[0] = 0;
  full[1] = mask;                                // -1 / the unsigned maximum
  full[2] = is_signed ? 1ull << (bits - 1) : 0;  // the signed minimum
  full[3] = is_signed ? mask >> 1 : mask - 1;    // the signed maximum
  out.push_back(from_bits(p + "full_range", t, {257}, full));
  // Small values, many exact zeros: the moments of near-integers, percentiles between equal values.
  std::vector<uint64_t> small(40 * 25);
  for (auto& b : small) {
    int64_t v = static_cast<int64_t>(rng.next() % 7) - (is_signed ? 3 : 0);
    b = static_cast<uint64_t>(v) & mask;
  }
  out.push_back(from_bits(p + "small_2d", t, {40, 25}, small));
  out.push_back(from_bits(p + "constant", t, {2, 2, 2}, std::vector<uint64_t>(8, 7)));
  out.push_back(from_bits(p + "one", t, {1}, {is_signed ? mask : 5}));
}

void add_bool_tensors(std::vector<TensorToWrite>& out, Rng& rng) {
  std::vector<uint64_t> v(300);
  for (auto& b : v) b = rng.next() & 1;
  out.push_back(from_bits("bool.random", DType::BOOL, {20, 15}, v));
  out.push_back(from_bits("bool.all_false", DType::BOOL, {10}, std::vector<uint64_t>(10, 0)));
  out.push_back(from_bits("bool.all_true", DType::BOOL, {10}, std::vector<uint64_t>(10, 1)));
}

std::vector<TensorToWrite> all_dtype_tensors() {
  Rng rng(20240601);
  std::vector<TensorToWrite> t;
  for (const auto& f : float_formats()) add_float_tensors(t, f, rng);
  add_e8m0_tensors(t, rng);
  add_int_tensors(t, DType::I8, true, rng);
  add_int_tensors(t, DType::U8, false, rng);
  add_int_tensors(t, DType::I16, true, rng);
  add_int_tensors(t, DType::U16, false, rng);
  add_int_tensors(t, DType::I32, true, rng);
  add_int_tensors(t, DType::U32, false, rng);
  add_int_tensors(t, DType::I64, true, rng);
  add_int_tensors(t, DType::U64, false, rng);
  add_bool_tensors(t, rng);
  return t;
}

// Float8 weights beside their scales (block FP8 over a shape no multiple of 128, per row in BF16, per tensor,
// and a scale whose shape fits no block grid, which is then not applied), each code random, the scales varied
// so that every block differs.
std::vector<TensorToWrite> scaled_float8_tensors() {
  Rng rng(99);
  const FloatFormat& e4m3 = float_formats()[4];
  const FloatFormat& e5m2 = float_formats()[5];
  const FloatFormat& bf16 = float_formats()[3];
  EXPECT_EQ(e4m3.dtype, DType::F8_E4M3);
  EXPECT_EQ(e5m2.dtype, DType::F8_E5M2);
  auto codes = [&](const FloatFormat& f, const std::string& name, Shape shape) {
    std::vector<uint64_t> bits(numel(shape));
    for (auto& b : bits) b = encode(f, rng.weight(f.sigma * 40));
    return from_bits(name, f.dtype, std::move(shape), bits);
  };
  auto scales = [&](const FloatFormat& f, const std::string& name, Shape shape) {
    std::vector<uint64_t> bits(numel(shape));
    for (auto& b : bits) b = encode(f, 1e-3 * (1 + rng.uniform()));
    return from_bits(name, f.dtype, std::move(shape), bits);
  };
  const FloatFormat& f32 = float_formats()[1];
  return {codes(e4m3, "block.weight", {300, 200}), scales(f32, "block.weight_scale_inv", {3, 2}),
          codes(e5m2, "row.weight", {10, 7}),      scales(bf16, "row.weight_scale", {10, 1}),
          codes(e4m3, "whole.weight", {5, 8}),     scales(f32, "whole.weight_scale", {}),
          codes(e4m3, "misfit.weight", {4, 4}),    scales(f32, "misfit.weight_scale_inv", {3, 3})};
}

// ~5 million BF16 weights (2048 x 2448), with a few zeros, NaN and Inf sprinkled in, so the counting paths
// run at a realistic scale.
std::vector<TensorToWrite> large_bf16_tensor() {
  const FloatFormat& f = float_formats()[3];
  EXPECT_EQ(f.dtype, DType::BF16);
  Rng rng(7);
  const uint64_t rows = 2048, cols = 2448;
  std::string data;
  data.reserve(rows * cols * 2);
  for (uint64_t i = 0; i < rows * cols; ++i) {
    uint64_t b = encode(f, rng.weight(0.02));
    if (i % 100003 == 0) b = f.nan();
    if (i % 250007 == 1) b = (i & 2) ? f.inf() : f.sign() | f.inf();
    if (i % 9973 == 5) b = (i & 1) ? f.sign() : 0;
    put_le(data, b, 2);
  }
  return {{"model.layers.0.mlp.up_proj.weight", DType::BF16, {rows, cols}, std::move(data)}};
}

// -----------------------------------------------------------------------------------------------------------
// The comparison.

const json::Value* member(const json::Value& obj, std::string_view key) {
  return obj.is_object() ? obj.find(key) : nullptr;
}

std::string num_text(const json::Value* v) {
  if (!v) return "(absent)";
  if (v->is_null()) return "null";
  if (v->is_number()) return std::string(v->raw());
  return "(not a number)";
}

// What every statistic is checked for first: present in both outputs, and null exactly where the reference
// has null. `compare` is set when both hold a value to compare.
void expect_present(const json::Value* ours, const json::Value* ref, const std::string& what, bool& compare) {
  compare = false;
  ASSERT_NE(ref, nullptr) << what << ": missing from the reference";
  if (!ours) {
    ADD_FAILURE() << what << ": missing from our output (reference " << num_text(ref) << ")";
    return;
  }
  if (ref->is_null()) {
    EXPECT_TRUE(ours->is_null()) << what << ": ours " << num_text(ours) << ", reference null";
    return;
  }
  compare = true;
}

// A double statistic: null exactly where the reference has null, else within kRelTol relative or `abs_tol`
// absolute (kAbsTol, for statistics that can cancel to near zero).
void expect_close(const json::Value* ours, const json::Value* ref, const std::string& what,
                  double abs_tol = kAbsTol) {
  bool compare = false;
  expect_present(ours, ref, what, compare);
  if (!compare) return;
  if (!ours->is_number()) {
    ADD_FAILURE() << what << ": ours " << num_text(ours) << ", reference " << num_text(ref);
    return;
  }
  double a = ours->as_double(), b = ref->as_double();
  double diff = std::fabs(a - b);
  EXPECT_TRUE(diff <= abs_tol || diff <= kRelTol * std::max(std::fabs(a), std::fabs(b)))
      << what << ": ours " << num_text(ours) << ", reference " << num_text(ref) << " (|diff| " << diff << ")";
}

// A count (or a nullable integer such as rows): exactly equal.
void expect_count(const json::Value* ours, const json::Value* ref, const std::string& what) {
  bool compare = false;
  expect_present(ours, ref, what, compare);
  if (!compare) return;
  auto a = ours->as_uint();
  auto b = ref->as_uint();
  ASSERT_TRUE(b.has_value()) << what << ": reference " << num_text(ref) << " is not a count";
  EXPECT_TRUE(a.has_value() && *a == *b) << what << ": ours " << num_text(ours) << ", reference " << *b;
}

void compare_tensor(const json::Value& ours, const json::Value& ref, const std::string& where) {
  const json::Value* dt = member(ours, "dtype");
  EXPECT_TRUE(dt && dt->is_string() && dt->as_string() == member(ref, "dtype")->as_string())
      << where << ": dtype, reference " << member(ref, "dtype")->as_string();
  const json::Value* shape = member(ours, "shape");
  const auto& ref_shape = member(ref, "shape")->items();
  if (!shape || !shape->is_array() || shape->items().size() != ref_shape.size()) {
    ADD_FAILURE() << where << ": shape has not " << ref_shape.size() << " dims";
  } else {
    for (size_t i = 0; i < ref_shape.size(); ++i)
      expect_count(&shape->items()[i], &ref_shape[i], where + ".shape[" + std::to_string(i) + "]");
  }
  const json::Value* scaled_by = member(ours, "scaled_by");
  const json::Value* ref_scaled_by = member(ref, "scaled_by");
  if (ref_scaled_by->is_null())
    EXPECT_TRUE(scaled_by && scaled_by->is_null()) << where << ": scaled_by, reference null";
  else
    EXPECT_TRUE(scaled_by && scaled_by->is_string() && scaled_by->as_string() == ref_scaled_by->as_string())
        << where << ": scaled_by, reference " << ref_scaled_by->as_string();
  for (const char* k : {"numel", "bytes", "nan_count", "inf_count", "rows", "cols", "design_rank"})
    expect_count(member(ours, k), member(ref, k), where + "." + k);
  for (const char* k : {"mean", "std", "var", "l2_norm", "kurtosis", "zeros_fraction", "near_zero_fraction"})
    expect_close(member(ours, k), member(ref, k), where + "." + k);
  // Values of the data themselves: relative only, so that a tiny minimum (F8_E8M0's 2^-127) is really
  // checked.
  for (const char* k : {"min", "max", "abs_max"})
    expect_close(member(ours, k), member(ref, k), where + "." + k, 0);

  const json::Value* pct = member(ours, "percentiles");
  for (const auto& m : member(ref, "percentiles")->members()) {
    std::string key(m.key);
    expect_close(pct ? member(*pct, key) : nullptr, &m.value, where + ".percentiles." + key);
  }

  const json::Value* hist = member(ours, "histogram");
  const json::Value& ref_hist = *member(ref, "histogram");
  ASSERT_TRUE(hist && hist->is_object()) << where << ": no histogram object";
  const json::Value* edges = member(*hist, "edges");
  const json::Value* ref_edges = member(ref_hist, "edges");
  if (ref_edges->is_null()) {
    EXPECT_TRUE(edges && edges->is_null()) << where << ".histogram.edges: reference null";
  } else if (!edges || !edges->is_array() || edges->items().size() != ref_edges->items().size()) {
    ADD_FAILURE() << where << ".histogram.edges: not " << ref_edges->items().size() << " edges";
  } else {
    for (size_t i = 0; i < edges->items().size(); ++i)
      expect_close(&edges->items()[i], &ref_edges->items()[i],
                   where + ".histogram.edges[" + std::to_string(i) + "]");
  }
  const json::Value* counts = member(*hist, "counts");
  const auto& ref_counts = member(ref_hist, "counts")->items();
  if (!counts || !counts->is_array() || counts->items().size() != ref_counts.size()) {
    ADD_FAILURE() << where << ".histogram.counts: not " << ref_counts.size() << " bins";
  } else {
    for (size_t i = 0; i < ref_counts.size(); ++i)
      expect_count(&counts->items()[i], &ref_counts[i],
                   where + ".histogram.counts[" + std::to_string(i) + "]");
  }
}

// Runs both programs on `file` and compares every tensor; returns the number of tensors compared.
size_t compare_with_reference(const fs::path& file) {
  auto ours = test::run_cli("stats " + quoted(file) + " --json" + kStatsArgs);
  EXPECT_EQ(ours.exit_code, 0) << file << ": " << ours.err;
  if (ours.exit_code != 0) return 0;
  auto ref = run_shell(std::string(kPython) + " " +
                       quoted(fs::path(MA_SOURCE_DIR) / "scripts" / "stats_reference.py") + " " +
                       quoted(file) + kStatsArgs);
  EXPECT_EQ(ref.exit_code, 0) << file << ": stats_reference.py: " << ref.err;
  if (ref.exit_code != 0) return 0;

  json::Limits limits;
  limits.max_bytes = 1ull << 30;
  auto our_doc = json::Document::parse(std::move(ours.out), "modelanalyzer stats --json", limits);
  auto ref_doc = json::Document::parse(std::move(ref.out), "stats_reference.py", limits);
  const json::Value& root = our_doc.root();
  const json::Value* eps = member(root, "eps");
  EXPECT_TRUE(eps && eps->is_number() && eps->as_double() == 1e-3) << file << ": eps";
  const json::Value* bins = member(root, "bins");
  EXPECT_TRUE(bins && bins->as_uint() == 32u) << file << ": bins";
  const json::Value* tensors = member(root, "tensors");
  EXPECT_TRUE(tensors && tensors->is_array()) << file << ": no tensors array";
  if (!tensors || !tensors->is_array()) return 0;

  std::map<std::string, const json::Value*, std::less<>> by_name;
  for (const auto& t : tensors->items()) {
    const json::Value* name = member(t, "name");
    EXPECT_TRUE(name && name->is_string()) << file << ": a tensor without a name";
    if (name && name->is_string()) {
      EXPECT_TRUE(by_name.emplace(std::string(name->as_string()), &t).second)
          << file << ": tensor " << name->as_string() << " listed twice";
    }
  }
  const auto& ref_tensors = member(ref_doc.root(), "tensors")->members();
  size_t compared = 0;
  for (const auto& m : ref_tensors) {
    auto it = by_name.find(m.key);
    std::string where = file.filename().string() + ":" + std::string(m.key);
    if (it == by_name.end()) {
      ADD_FAILURE() << where << ": missing from our output";
      continue;
    }
    compare_tensor(*it->second, m.value, where);
    by_name.erase(it);
    ++compared;
  }
  // What is left is not in the file. Only a PEFT adapter's frozen base tensors may be (the command reads the
  // base model the adapter names, marking its tensors "trainable": false; the base is compared on its own).
  for (const auto& [name, t] : by_name) {
    const json::Value* trainable = member(*t, "trainable");
    EXPECT_TRUE(trainable && trainable->is_bool() && !trainable->as_bool())
        << file << ": tensor " << name << " is in our output but not in the file";
  }
  return compared;
}

// Skips the calling test, visibly, when the reference cannot run.
#define MA_REQUIRE_NUMPY()                                                                        \
  do {                                                                                            \
    if (!test::python_imports("numpy"))                                                           \
      GTEST_SKIP() << kPython << " cannot import numpy (Debian: apt-get install python3-numpy), " \
                   << "so the numpy reference for `modelanalyzer stats` cannot run";              \
  } while (0)

// The reference's decoders against hand-worked values (and numpy's own F16/F32/F64): the ground truth the
// comparisons below rest on. Runs without our binary.
TEST(StatsNumpy, ReferenceSelfTest) {
  MA_REQUIRE_NUMPY();
  auto r = run_shell(std::string(kPython) + " " +
                     quoted(fs::path(MA_SOURCE_DIR) / "scripts" / "stats_reference.py") + " --self-test");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(StatsNumpy, EveryDtypeAndSpecialValue) {
  MA_REQUIRE_NUMPY();
  test::TempDir tmp;
  auto tensors = all_dtype_tensors();
  write_safetensors(tmp / "all_dtypes.safetensors", tensors);
  EXPECT_EQ(compare_with_reference(tmp / "all_dtypes.safetensors"), tensors.size());
}

// Scaled float8 weights are statistics of code x scale, in float32; the scales are tensors of their own.
TEST(StatsNumpy, Float8WeightsTimesTheirScales) {
  MA_REQUIRE_NUMPY();
  test::TempDir tmp;
  const auto tensors = scaled_float8_tensors();
  write_safetensors(tmp / "fp8.safetensors", tensors);
  EXPECT_EQ(compare_with_reference(tmp / "fp8.safetensors"), tensors.size());
  const auto r = test::run_cli("stats " + quoted(tmp / "fp8.safetensors") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.err.find("misfit.weight: its scale misfit.weight_scale_inv [3, 3] fits no block grid over [4, 4]"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("\"scaled_by\":\"block.weight_scale_inv\""), std::string::npos);
}

TEST(StatsNumpy, FiveMillionBf16) {
  MA_REQUIRE_NUMPY();
  test::TempDir tmp;
  write_safetensors(tmp / "large.safetensors", large_bf16_tensor());
  EXPECT_EQ(compare_with_reference(tmp / "large.safetensors"), 1u);
}

TEST(StatsNumpy, FixtureCheckpoints) {
  MA_REQUIRE_NUMPY();
  auto data = test::shared_data();
  if (!data || !fs::is_directory(*data / "fixtures"))
    GTEST_SKIP() << "../shared/data/fixtures is not available";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(*data / "fixtures"))
    if (e.is_regular_file() && e.path().extension() == ".safetensors") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    EXPECT_GT(compare_with_reference(f), 0u);
  }
}

}  // namespace
}  // namespace ma
