// A two-pass tensor split into units that several threads run at once must give what one unit gives: every
// count, extreme, percentile and histogram bin exactly, and the moments to the last bits a different order of
// compensated summation may move, and with the same units any number of threads the same bits. Histogram
// and percentiles must equal those of every value binned and sorted. The progress callback must end at the
// file's bytes, read twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "analysis/stats_math.h"
#include "analysis/weight_scan.h"
#include "core/error.h"
#include "formats/ggml_dequant.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// A deterministic generator: the same bytes on every machine.
struct Lcg {
  uint64_t x = 0x9E3779B97F4A7C15ull;
  uint64_t next() {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 11;
  }
  double uniform() { return static_cast<double>(next() >> 11) / static_cast<double>(1ull << 42); }
};

void append(std::string& out, const void* p, size_t n) {
  out.append(static_cast<const char*>(p), n);
}

// Roughly Gaussian float32 weights with exact zeros, a NaN, an infinity and one far outlier.
std::string f32_values(size_t n, Lcg& g) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    float v = static_cast<float>((g.uniform() + g.uniform() + g.uniform() - 1.5) * 0.02);
    if (i % 97 == 0) v = 0.0f;
    if (i == n / 3) v = std::numeric_limits<float>::quiet_NaN();
    if (i == n / 2) v = std::numeric_limits<float>::infinity();
    if (i == n - 5) v = 3e4f;
    append(out, &v, 4);
  }
  return out;
}

std::string f64_values(size_t n, Lcg& g) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    double v = (g.uniform() - 0.5) * 1e-3 + (i % 7 == 0 ? 1.0 : 0.0);
    append(out, &v, 8);
  }
  return out;
}

// Q4_K super-blocks (144 bytes) with random codes and scales, and d / dmin fp16 values near 0.001 so that
// every level is finite.
std::string q4_k_blocks(size_t blocks, Lcg& g) {
  std::string out;
  for (size_t b = 0; b < blocks; ++b) {
    const uint16_t d = static_cast<uint16_t>(0x1400 + g.next() % 0x200);
    const uint16_t dmin = static_cast<uint16_t>(0x1000 + g.next() % 0x200);
    append(out, &d, 2);
    append(out, &dmin, 2);
    for (int i = 0; i < 140; ++i) out.push_back(static_cast<char>(g.next() & 0xff));
  }
  return out;
}

// Q8_0 blocks (34 bytes: an fp16 scale and 32 int8 codes), decoded element by element.
std::string q8_0_blocks(size_t blocks, Lcg& g) {
  std::string out;
  for (size_t b = 0; b < blocks; ++b) {
    const uint16_t d = static_cast<uint16_t>(0x1400 + g.next() % 0x200);
    append(out, &d, 2);
    for (int i = 0; i < 32; ++i) out.push_back(static_cast<char>(g.next() & 0xff));
  }
  return out;
}

void expect_same(const TensorStats& one, const TensorStats& split) {
  SCOPED_TRACE(one.name);
  EXPECT_EQ(split.finite, one.finite);
  EXPECT_EQ(split.nan_count, one.nan_count);
  EXPECT_EQ(split.inf_count, one.inf_count);
  EXPECT_EQ(split.min, one.min);
  EXPECT_EQ(split.max, one.max);
  EXPECT_EQ(split.abs_max, one.abs_max);
  EXPECT_EQ(split.zeros_fraction, one.zeros_fraction);
  EXPECT_EQ(split.near_zero_fraction, one.near_zero_fraction);
  for (size_t i = 0; i < one.percentiles.size(); ++i) EXPECT_EQ(split.percentiles[i], one.percentiles[i]);
  EXPECT_EQ(split.histogram.edges, one.histogram.edges);
  EXPECT_EQ(split.histogram.counts, one.histogram.counts);
  for (auto [a, b] : {std::pair{one.mean, split.mean},
                      {one.std, split.std},
                      {one.kurtosis, split.kurtosis},
                      {one.l2_norm, split.l2_norm}})
    EXPECT_NEAR(b, a, 1e-14 * std::fabs(a));
  EXPECT_GT(one.finite, 0u);
  EXPECT_GT(one.std, 0.0);
}

// The histogram and percentiles of `values` (finite ones) the plain way: every value binned, all sorted.
void expect_brute_force(const TensorStats& s, std::vector<float> values, uint32_t bins) {
  SCOPED_TRACE(s.name);
  std::erase_if(values, [](float v) { return !std::isfinite(v); });
  std::sort(values.begin(), values.end());
  ASSERT_EQ(values.size(), s.finite);
  auto [first, last] = histogram_range(values.front(), values.back());
  const std::vector<double> edges = histogram_edges(first, last, bins);
  const HistogramBinner binner(edges);
  std::vector<uint64_t> counts(bins, 0);
  for (float v : values) ++counts[binner.bin(v)];
  EXPECT_EQ(s.histogram.edges, edges);
  EXPECT_EQ(s.histogram.counts, counts);
  for (size_t i = 0; i < kPercentiles.size(); ++i) {
    const PercentileRank r = percentile_rank(kPercentiles[i], values.size());
    const double above = values[std::min<size_t>(r.below + 1, values.size() - 1)];
    EXPECT_EQ(s.percentiles[i], interpolate(values[r.below], above, r.fraction)) << kPercentiles[i];
  }
}

std::vector<float> floats_of(const std::string& bytes) {
  std::vector<float> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

std::vector<float> decoded(DType t, const std::string& bytes, size_t blocks, size_t per_block) {
  std::vector<float> out(blocks * per_block);
  dequantize_blocks(t, reinterpret_cast<const uint8_t*>(bytes.data()), blocks, out.data());
  return out;
}

TEST(WeightScanUnits, ATwoPassTensorSplitIntoUnitsGivesWhatOneUnitGives) {
  test::TempDir tmp;
  Lcg g;
  const std::string f32 = f32_values(300'001, g), f64 = f64_values(70'001, g), q4k = q4_k_blocks(2'000, g),
                    q80 = q8_0_blocks(5'000, g);
  const fs::path file = tmp / "tensors.bin";
  {
    std::ofstream out(file, std::ios::binary);
    out << f32 << f64 << q4k << q80;
  }
  std::vector<ScanItem> items = {
      {"f32", file, 0, f32.size(), DType::F32, Shape{300'001}, 300'001, {}},
      {"f64", file, f32.size(), f64.size(), DType::F64, Shape{70'001}, 70'001, {}},
      {"q4_k", file, f32.size() + f64.size(), q4k.size(), DType::Q4_K, Shape{2'000 * 256}, 2'000 * 256, {}},
      {"q8_0",
       file,
       f32.size() + f64.size() + q4k.size(),
       q80.size(),
       DType::Q8_0,
       Shape{5'000 * 32},
       5'000 * 32,
       {}},
  };
  ScanOptions whole;
  whole.bins = 32;
  whole.threads = 1;
  whole.unit_bytes = 1ull << 40;
  const std::vector<TensorStats> one = scan_weights(items, whole);

  ScanOptions split = whole;
  split.threads = 3;
  split.unit_bytes = 40'000;  // 31 F32 units, 15 F64, 8 Q4_K (whole blocks: 39,888 bytes), 5 Q8_0
  std::atomic<uint64_t> last_done{0}, last_total{0};
  split.progress = [&](uint64_t done, uint64_t total) {
    uint64_t seen = last_done.load();
    while (done > seen && !last_done.compare_exchange_weak(seen, done)) {
    }
    last_total = total;
  };
  const std::vector<TensorStats> many = scan_weights(items, split);
  ASSERT_EQ(many.size(), one.size());
  for (size_t i = 0; i < one.size(); ++i) expect_same(one[i], many[i]);
  // The unit size alone fixes the order of the compensated sums: one thread gives the same bits as three.
  ScanOptions serial = split;
  serial.threads = 1;
  serial.progress = nullptr;
  const std::vector<TensorStats> again = scan_weights(items, serial);
  for (size_t i = 0; i < many.size(); ++i) {
    SCOPED_TRACE(many[i].name);
    EXPECT_EQ(std::bit_cast<uint64_t>(again[i].mean), std::bit_cast<uint64_t>(many[i].mean));
    EXPECT_EQ(std::bit_cast<uint64_t>(again[i].std), std::bit_cast<uint64_t>(many[i].std));
    EXPECT_EQ(std::bit_cast<uint64_t>(again[i].kurtosis), std::bit_cast<uint64_t>(many[i].kurtosis));
    EXPECT_EQ(std::bit_cast<uint64_t>(again[i].l2_norm), std::bit_cast<uint64_t>(many[i].l2_norm));
  }
  // Pass 2 bins value by value only the key buckets a histogram edge cuts; the rest come whole from pass 1.
  expect_brute_force(many[0], floats_of(f32), whole.bins);
  expect_brute_force(many[2], decoded(DType::Q4_K, q4k, 2'000, 256), whole.bins);
  expect_brute_force(many[3], decoded(DType::Q8_0, q80, 5'000, 32), whole.bins);
  EXPECT_EQ(one[0].nan_count, 1u);
  EXPECT_EQ(one[0].inf_count, 1u);
  EXPECT_EQ(one[0].max, 3e4);
  EXPECT_EQ(last_total.load(), f32.size() + f64.size() + q4k.size() + q80.size());
  EXPECT_EQ(last_done.load(), last_total.load());
}

// Pass 1 merges only the key buckets between those of a unit's least and greatest values. A zero may be -0
// or +0, whose buckets differ (-0 sorts first), whichever of them min or max reports: tensors whose least or
// greatest value is a zero of either sign, or that hold only zeros, must keep every count.
TEST(WeightScanUnits, SignedZerosAtEitherEndKeepTheirCounts) {
  test::TempDir tmp;
  Lcg g;
  std::vector<std::vector<float>> tensors(3);
  for (int i = 0; i < 3000; ++i) {
    const float zero = i % 3 == 0 ? -0.0f : 0.0f;
    const float away = static_cast<float>(g.uniform() + 0.001);
    tensors[0].push_back(i % 2 ? zero : away);   // least value a zero
    tensors[1].push_back(i % 2 ? zero : -away);  // greatest value a zero
    tensors[2].push_back(zero);                  // only zeros
  }
  const fs::path file = tmp / "zeros.bin";
  std::vector<ScanItem> items;
  {
    std::ofstream out(file, std::ios::binary);
    for (size_t t = 0; t < tensors.size(); ++t) {
      out.write(reinterpret_cast<const char*>(tensors[t].data()), 3000 * 4);
      items.push_back(
          {"t" + std::to_string(t), file, t * 3000 * 4, 3000 * 4, DType::F32, Shape{3000}, 3000, {}});
    }
  }
  ScanOptions options;
  options.bins = 16;
  options.unit_bytes = 1000;  // 12 units a tensor: each unit's range differs
  const std::vector<TensorStats> stats = scan_weights(items, options);
  for (size_t t = 0; t < tensors.size(); ++t) {
    SCOPED_TRACE(t);
    EXPECT_EQ(stats[t].finite, 3000u);
    EXPECT_EQ(stats[t].zeros_fraction, t == 2 ? 1.0 : 0.5);
    expect_brute_force(stats[t], tensors[t], options.bins);
  }
}

// A key bucket holding most of a tensor's values (a repeated value, a pruned matrix's zeros) at a percentile
// is counted by each unit on its own, in runs of one key, and merged at the unit's end (SlotCounts' heavy
// buckets: over 65,536 of its values a unit on average). The counts must be those of every value sorted:
// runs of several keys in one bucket, broken by other values, across units and threads, and a Q4_K tensor's
// weighted levels (blocks of zero scale: every level 0) as well.
TEST(WeightScanUnits, ABucketHoldingMostValuesCountsThemAll) {
  test::TempDir tmp;
  Lcg g;
  std::vector<float> repeated, pruned;
  for (int i = 0; i < 1'000'001; ++i) {
    // Runs of 0.5 and of the next few floats above it, one bucket (65,536 keys), every 9th value apart.
    const int run = (i / 37) % 4;
    repeated.push_back(i % 9 == 0 ? static_cast<float>(g.uniform())
                                  : std::nextafter(0.5f + static_cast<float>(run) * 6e-8f, 1.0f));
    pruned.push_back(i % 4 < 3 ? 0.0f : static_cast<float>(g.uniform() - 0.5));  // 75% zeros: the median's
  }
  std::string q4k = q4_k_blocks(4'000, g);
  for (size_t b = 0; b < 4'000; ++b)
    if (b % 10 != 0) std::memset(q4k.data() + b * 144, 0, 4);  // d = dmin = 0: all 256 levels are 0
  const fs::path file = tmp / "heavy.bin";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(repeated.data()),
              static_cast<std::streamsize>(repeated.size() * 4));
    out.write(reinterpret_cast<const char*>(pruned.data()), static_cast<std::streamsize>(pruned.size() * 4));
    out << q4k;
  }
  const uint64_t f32_bytes = repeated.size() * 4;
  const std::vector<ScanItem> items = {
      {"repeated", file, 0, f32_bytes, DType::F32, Shape{1'000'001}, 1'000'001, {}},
      {"pruned", file, f32_bytes, f32_bytes, DType::F32, Shape{1'000'001}, 1'000'001, {}},
      {"q4_k", file, 2 * f32_bytes, q4k.size(), DType::Q4_K, Shape{4'000 * 256}, 4'000 * 256, {}},
  };
  ScanOptions options;
  options.bins = 32;
  options.threads = 3;
  // 11 units of 100,000 floats a tensor, each holding ~81,000 repeated values or ~75,000 zeros on average:
  // heavy (over 65,536 a unit), counted by each unit and merged from three threads; Q4_K's 2 units of 2,777
  // blocks.
  options.unit_bytes = 400'000;
  const std::vector<TensorStats> split = scan_weights(items, options);
  expect_brute_force(split[0], repeated, options.bins);
  expect_brute_force(split[1], pruned, options.bins);
  expect_brute_force(split[2], decoded(DType::Q4_K, q4k, 4'000, 256), options.bins);
  EXPECT_EQ(split[1].percentiles[2], 0.0);
  EXPECT_EQ(split[2].percentiles[2], 0.0);
  options.threads = 1;
  options.unit_bytes = 1ull << 40;
  const std::vector<TensorStats> one = scan_weights(items, options);
  for (size_t i = 0; i < one.size(); ++i) expect_same(one[i], split[i]);
}

// A unit lists the values it finds in a wanted bucket that is not heavy and adds them to the tensor's counts
// under the lock, in parts when the list fills (16,384 values). Here the median's bucket, [1, 1 + 2^-7),
// holds 160,000 of 400,000 values, all in the first two of four units: 40,000 a unit on average (not heavy),
// but 100,000 in the first one. One unit for the whole tensor counts the same bucket as heavy instead.
TEST(WeightScanUnits, AUnitFindingManyValuesOfAWantedBucketAddsThemAll) {
  test::TempDir tmp;
  Lcg g;
  std::vector<float> values;
  for (int i = 0; i < 160'000; ++i) values.push_back(1.0f + static_cast<float>(g.next() % 65'536) * 0x1p-23f);
  for (int i = 0; i < 120'000; ++i) values.push_back(static_cast<float>(g.uniform() * 1.99 - 1.0));
  for (int i = 0; i < 120'000; ++i) values.push_back(static_cast<float>(1.01 + g.uniform() * 2.0));
  const fs::path file = tmp / "crowded.bin";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  }
  const std::vector<ScanItem> items = {
      {"crowded", file, 0, values.size() * 4, DType::F32, Shape{400'000}, 400'000, {}}};
  ScanOptions options;
  options.bins = 32;
  options.threads = 3;
  options.unit_bytes = 400'000;  // 4 units of 100,000 floats
  const std::vector<TensorStats> split = scan_weights(items, options);
  expect_brute_force(split[0], values, options.bins);
  EXPECT_GE(split[0].percentiles[2], 1.0);
  EXPECT_LT(split[0].percentiles[2], 1.0078125);
  options.threads = 1;
  options.unit_bytes = 1ull << 40;
  const std::vector<TensorStats> one = scan_weights(items, options);
  expect_same(one[0], split[0]);
}

// Pass 1 compares float32 values (and a block type's levels) as floats, eight at a time, so "near zero",
// |x| <= eps for a double eps, is |x| against the greatest float not above eps. Around an eps that no float
// equals (0.1: 0.1f lies above it, the float before below), one a float equals, zero, and 1e300 (past the
// floats' range, where converting it would be undefined), the counts must be those of the values compared
// as doubles; zeros, least and greatest too, in the float form and the Q4_K level form.
TEST(WeightScanUnits, ZerosNearZerosAndExtremesAreThoseOfEveryValueComparedAsDoubles) {
  test::TempDir tmp;
  Lcg g;
  std::vector<float> f32;
  for (float b : {0.1f, 0.25f, 1e-6f})
    for (float v : {b, std::nextafter(b, 0.0f), std::nextafter(b, 1.0f)}) {
      f32.push_back(v);
      f32.push_back(-v);
    }
  for (int i = 0; i < 10'001; ++i) f32.push_back(i % 13 == 0 ? 0.0f : static_cast<float>(g.uniform() - 0.5));
  std::string q4k = q4_k_blocks(300, g);
  const std::vector<float> levels = decoded(DType::Q4_K, q4k, 300, 256);
  const fs::path file = tmp / "near.bin";
  {
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(f32.data()), static_cast<std::streamsize>(f32.size() * 4));
    out << q4k;
  }
  const std::vector<ScanItem> items = {
      {"f32", file, 0, f32.size() * 4, DType::F32, Shape{f32.size()}, f32.size(), {}},
      {"q4_k", file, f32.size() * 4, q4k.size(), DType::Q4_K, Shape{300 * 256}, 300 * 256, {}},
  };
  const double q4k_level = std::fabs(static_cast<double>(levels[77]));  // an eps a level equals
  for (double eps : {0.1, 0.25, 1e-6, 0.0, 1e300, q4k_level, 0.01}) {
    ScanOptions options;
    options.eps = eps;
    const std::vector<TensorStats> stats = scan_weights(items, options);
    for (const auto& [s, values] : {std::pair{stats[0], f32}, {stats[1], levels}}) {
      SCOPED_TRACE(s.name + " eps " + std::to_string(eps));
      uint64_t zeros = 0, near = 0;
      for (float v : values) {
        zeros += v == 0;
        near += std::fabs(static_cast<double>(v)) <= eps;
      }
      const double n = static_cast<double>(values.size());
      EXPECT_EQ(s.zeros_fraction, static_cast<double>(zeros) / n);
      EXPECT_EQ(s.near_zero_fraction, static_cast<double>(near) / n);
      EXPECT_EQ(s.min, *std::min_element(values.begin(), values.end()));
      EXPECT_EQ(s.max, *std::max_element(values.begin(), values.end()));
    }
  }
}

// Threads wait in the scan for a tensor's pass 2 while its pass 1 ends elsewhere. A unit that fails (its last
// read runs past the file's end) must end the scan with its error and release them: the scan must not hang
// (ctest's timeout would fail it) nor report a result. The failing unit comes first and is the slowest, so
// the others' threads have run every small tensor's two passes and wait for its pass 2 when it fails.
TEST(WeightScanUnits, AFailedUnitEndsTheScanWithItsErrorAndReleasesTheWaitingThreads) {
  test::TempDir tmp;
  Lcg g;
  const std::string big = f32_values(4'000'001, g), small = f32_values(80'000, g);
  const fs::path big_file = tmp / "big.bin", small_file = tmp / "small.bin";
  std::ofstream(big_file, std::ios::binary) << big;
  std::ofstream(small_file, std::ios::binary) << small;
  std::vector<ScanItem> items = {{"runs past the end",
                                  big_file,
                                  0,
                                  big.size() + 4096,
                                  DType::F32,
                                  Shape{4'000'001 + 1024},
                                  4'000'001 + 1024,
                                  {}}};
  for (uint64_t i = 0; i < 8; ++i)
    items.push_back({"small " + std::to_string(i),
                     small_file,
                     i * 40'000,
                     40'000,
                     DType::F32,
                     Shape{10'000},
                     10'000,
                     {}});
  ScanOptions options;
  options.threads = 4;
  for (int attempt = 0; attempt < 10; ++attempt) {  // the threads' timing differs from run to run
    try {
      scan_weights(items, options);
      ADD_FAILURE() << "a unit past the file's end did not fail the scan";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("runs past the end of the file"), std::string::npos) << e.what();
    }
  }
}

TEST(WeightScanUnits, ACancelledScanEndsInterrupted) {
  test::TempDir tmp;
  Lcg g;
  const std::string f32 = f32_values(200'001, g);
  const fs::path file = tmp / "tensors.bin";
  {
    std::ofstream out(file, std::ios::binary);
    out << f32;
  }
  const std::vector<ScanItem> items = {{"f32", file, 0, f32.size(), DType::F32, Shape{200'001}, 200'001, {}}};
  std::atomic<bool> cancel{false};
  ScanOptions options;
  options.threads = 4;
  options.unit_bytes = 40'000;
  options.cancel = &cancel;
  options.progress = [&](uint64_t, uint64_t) { cancel = true; };  // after the first unit
  try {
    scan_weights(items, options);
    ADD_FAILURE() << "a cancelled scan returned a result";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("interrupted"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ma
