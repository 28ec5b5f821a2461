#include "analysis/wide_tensor_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "analysis/stats_math.h"
#include "core/dtype_values.h"
#include "core/vector_clones.h"
#include "formats/ggml_dequant.h"
#include "formats/ggml_levels.h"

// bins_of recomputes histogram edges and must round i * step + first twice, as histogram_edges does; a
// compiler allowed to fuse it into one FMA (e.g. under -march=native) would move values across edges.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace ma {
namespace {

// Values are handled a piece at a time: 16,384 doubles and their keys (256 KiB) stay in a core's L2 cache
// between the loops that each look at them once.
constexpr size_t kPiece = 16384;

// A key whose unsigned order is the values' order: sign-magnitude floats flip, signed integers offset.
uint64_t order_key(DType t, uint64_t bits) {
  switch (t) {
    case DType::F32:  // without a branch: weights' signs are random, a branch on them mispredicts half the
                      // time
      return (bits ^ ((0 - (bits >> 31)) | 0x80000000u)) & 0xffffffffu;
    case DType::F64:
      return bits ^ ((0 - (bits >> 63)) | (1ull << 63));
    case DType::I32:
      return (bits ^ 0x80000000u) & 0xffffffffu;
    case DType::I64:
      return bits ^ (1ull << 63);
    default:
      return bits;
  }
}

// The bits back from a key (order_key's inverse for the 32-bit types).
uint64_t key_bits(DType t, uint64_t key) {
  if (t == DType::F32) return (key & 0x80000000u) ? (key & 0x7fffffffu) : (~key & 0xffffffffu);
  if (t == DType::I32) return key ^ 0x80000000u;
  return key;
}

// The finite values of one piece with their order keys and how many elements each stands for; NaN and ±Inf
// are counted and left out. A value stands for one element, except a level of a ggml block type read in its
// level form (formats/ggml_levels.h), which stands for every element of its group holding its code: the
// weights stay 1 for every other type.
struct Piece {
  std::vector<double> values = std::vector<double>(kPiece);
  std::vector<uint64_t> keys = std::vector<uint64_t>(kPiece);
  std::vector<double> weights;  // levels only: the counts as doubles, for the sums
  std::vector<uint32_t> counts;
  bool weighted = false;
  size_t n = 0;
  uint64_t elements = 0;  // the finite elements the piece's values stand for
  uint64_t nan = 0, inf = 0;
};

// float32 values and their keys; true when all are finite (an exponent of all ones is NaN or ±Inf).
MA_VECTOR_CLONES bool load_f32(const char* __restrict p, size_t count, double* __restrict values,
                               uint64_t* __restrict keys) {
  uint32_t special = 0;
  for (size_t i = 0; i < count; ++i) {
    uint32_t u;
    std::memcpy(&u, p + 4 * i, 4);
    values[i] = static_cast<double>(std::bit_cast<float>(u));
    keys[i] = order_key(DType::F32, u);
    special |= (u & 0x7f800000u) == 0x7f800000u;
  }
  return special == 0;
}

// Fills `piece` from `count` (≤ kPiece) stored elements of value type `vt` at `p`.
void load_piece(DType vt, const char* p, size_t count, Piece& piece) {
  const unsigned width = dtype_bits(vt) / 8;
  bool all_finite = true;
  if (vt == DType::F32) {
    all_finite = load_f32(p, count, piece.values.data(), piece.keys.data());
  } else {
    for (size_t i = 0; i < count; ++i) {
      uint64_t u = 0;
      std::memcpy(&u, p + width * i, width);
      const double v = element_value(vt, u);
      piece.values[i] = v;
      piece.keys[i] = order_key(vt, u);
      all_finite &= v - v == 0;
    }
  }
  piece.n = count;
  piece.elements = count;
  if (all_finite) return;
  size_t out = 0;
  for (size_t i = 0; i < count; ++i) {
    const double v = piece.values[i];
    if (std::isnan(v)) {
      ++piece.nan;
    } else if (std::isinf(v)) {
      ++piece.inf;
    } else {
      piece.values[out] = v;
      piece.keys[out++] = piece.keys[i];
    }
  }
  piece.n = piece.elements = out;
}

// The levels of a ggml block type in level form, `n` levels with their counts (0 to a group's size): each
// level becomes a value weighted by its count, those no element holds with weight 0 (the loops below add
// nothing for them and leave them out of min and max). Vectorised like load_f32 while every level is finite;
// a piece with a NaN or infinite level (a NaN or infinite scale) is redone one level at a time, counting
// those by their weights and leaving them out.
MA_VECTOR_CLONES bool load_finite_levels(const float* __restrict levels, const uint8_t* __restrict counts,
                                         size_t n, double* __restrict values, uint64_t* __restrict keys,
                                         double* __restrict weights, uint32_t* __restrict weight_counts) {
  uint32_t special = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, levels + i, 4);
    values[i] = static_cast<double>(levels[i]);
    keys[i] = order_key(DType::F32, u);
    weights[i] = static_cast<double>(counts[i]);
    weight_counts[i] = counts[i];
    special |= (u & 0x7f800000u) == 0x7f800000u;
  }
  return special == 0;
}

void load_levels(const float* levels, const uint8_t* counts, size_t n, Piece& piece) {
  if (!piece.weighted) {
    piece.weighted = true;
    piece.weights.resize(kPiece);
    piece.counts.resize(kPiece);
  }
  piece.n = n;
  piece.elements = 0;
  if (load_finite_levels(levels, counts, n, piece.values.data(), piece.keys.data(), piece.weights.data(),
                         piece.counts.data())) {
    uint64_t elements = 0;  // a local sum: counts (bytes) may alias the piece, and would keep it scalar
    for (size_t i = 0; i < n; ++i) elements += counts[i];
    piece.elements = elements;
    return;
  }
  size_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, levels + i, 4);
    const uint32_t c = counts[i];
    if ((u & 0x7f800000u) == 0x7f800000u) {
      ((u & 0x007fffffu) ? piece.nan : piece.inf) += c;
      continue;
    }
    piece.values[out] = static_cast<double>(levels[i]);
    piece.keys[out] = order_key(DType::F32, u);
    piece.weights[out] = static_cast<double>(c);
    piece.counts[out++] = c;
    piece.elements += c;
  }
  piece.n = out;
}

// The per-value loops run in four lanes of vector registers (GCC/Clang vector extensions: the compiler's own
// vectoriser gives up on these reductions), each sum compensated in its lane by Knuth's TwoSum, which needs
// no branch: a sum of 3e38 and 0.1 keeps the 0.1, as the scalar compensated sum (math.fsum) does. The lanes
// enter the caller's compensated totals in a fixed order, so a result never depends on which clone ran.
using Lanes = double __attribute__((vector_size(32)));
using LaneMask = int64_t __attribute__((vector_size(32)));
constexpr size_t kLanes = 4;

struct LaneSum {
  Lanes sum = {}, error = {};
  void add(const Lanes& x) {  // by reference: a 32-byte vector by value changes the ABI without AVX
    const Lanes t = sum + x, z = t - sum;
    error += (sum - (t - z)) + (x - z);
    sum = t;
  }
  void flush_into(CompensatedSum& total) const {
    for (size_t j = 0; j < kLanes; ++j) {
      total.add(sum[j]);
      total.add(error[j]);
    }
  }
};

// Pass 1's figures, accumulated over the pieces.
struct PassOne {
  CompensatedSum sum, squares;
  double min = INFINITY, max = -INFINITY;
  uint64_t zeros = 0, near = 0;
};

// Each value x enters as w copies: w * x and w * x * x are exact (x is a float32, w at most 32, so they fit
// in a double's 53 bits), and the counts of zeros and near-zeros are sums of small integers, exact in double.
// Unweighted (Weighted = false, `w` unread), every weight is the constant 1 and the compiler drops the
// multiplications: the element-by-element types pay nothing for the level form.
template <bool Weighted>
[[gnu::always_inline]] inline void pass_one(const double* v, const double* w, size_t n, double eps,
                                            PassOne& r) {
  const LaneMask magnitude = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  const Lanes none = {};
  LaneSum s, q;
  Lanes lo = {INFINITY, INFINITY, INFINITY, INFINITY};
  Lanes hi = -lo;
  Lanes z = {}, e = {};       // weighted counts of zeros and near-zeros
  LaneMask zi = {}, ei = {};  // unweighted: a comparison gives -1 in each lane where it holds
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes x;
    std::memcpy(&x, v + i, sizeof x);
    if constexpr (Weighted) {
      Lanes c;
      std::memcpy(&c, w + i, sizeof c);
      const Lanes cx = c * x;
      s.add(cx);
      q.add(cx * x);
      lo = ((x < lo) & (c > 0)) ? x : lo;
      hi = ((x > hi) & (c > 0)) ? x : hi;
      z += x == 0 ? c : none;
      e += (Lanes)((LaneMask)x & magnitude) <= eps ? c : none;
    } else {
      s.add(x);
      q.add(x * x);
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
      zi -= x == 0;
      ei -= (Lanes)((LaneMask)x & magnitude) <= eps;
    }
  }
  s.flush_into(r.sum);
  q.flush_into(r.squares);
  for (size_t j = 0; j < kLanes; ++j) {
    r.min = std::min(r.min, lo[j]);
    r.max = std::max(r.max, hi[j]);
    r.zeros += static_cast<uint64_t>(z[j]) + static_cast<uint64_t>(zi[j]);
    r.near += static_cast<uint64_t>(e[j]) + static_cast<uint64_t>(ei[j]);
  }
  for (; i < n; ++i) {
    const double x = v[i], c = Weighted ? w[i] : 1.0, cx = c * x;
    r.sum.add(cx);
    r.squares.add(cx * x);
    if (c > 0) {
      r.min = std::min(r.min, x);
      r.max = std::max(r.max, x);
    }
    r.zeros += x == 0 ? static_cast<uint64_t>(c) : 0;
    r.near += std::fabs(x) <= eps ? static_cast<uint64_t>(c) : 0;
  }
}

MA_VECTOR_CLONES void add_pass_one(const double* v, size_t n, double eps, PassOne& r) {
  pass_one<false>(v, nullptr, n, eps, r);
}

MA_VECTOR_CLONES void add_weighted_pass_one(const double* v, const double* w, size_t n, double eps,
                                            PassOne& r) {
  pass_one<true>(v, w, n, eps, r);
}

// Pass 2's sums of (x - mean)^2, ^3 and ^4 about pass 1's mean (numpy's two-pass variance), each value w
// times.
struct CentralMoments {
  CompensatedSum m2, m3, m4;
};

template <bool Weighted>
[[gnu::always_inline]] inline void central_moments(const double* v, const double* w, size_t n, double mean,
                                                   CentralMoments& c) {
  LaneSum a2, a3, a4;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes x;
    std::memcpy(&x, v + i, sizeof x);
    const Lanes d = x - mean, d2 = d * d;
    Lanes kd2 = d2;
    if constexpr (Weighted) {
      Lanes k;
      std::memcpy(&k, w + i, sizeof k);
      kd2 = k * d2;
    }
    a2.add(kd2);
    a3.add(kd2 * d);
    a4.add(kd2 * d2);
  }
  a2.flush_into(c.m2);
  a3.flush_into(c.m3);
  a4.flush_into(c.m4);
  for (; i < n; ++i) {
    const double d = v[i] - mean, d2 = d * d, kd2 = Weighted ? w[i] * d2 : d2;
    c.m2.add(kd2);
    c.m3.add(kd2 * d);
    c.m4.add(kd2 * d2);
  }
}

MA_VECTOR_CLONES void add_central_moments(const double* v, size_t n, double mean, CentralMoments& c) {
  central_moments<false>(v, nullptr, n, mean, c);
}

MA_VECTOR_CLONES void add_weighted_central_moments(const double* v, const double* w, size_t n, double mean,
                                                   CentralMoments& c) {
  central_moments<true>(v, w, n, mean, c);
}

// numpy.histogram's bin of each value (HistogramBinner's rule), four at a time. An edge is recomputed as
// histogram_edges computes it, i * step + first, rather than loaded: the two corrections then need no
// gather. Only edges 0 … bins - 1 are ever compared (the last bin takes its upper edge), and those are all
// computed this way.
using LaneIndex = int32_t __attribute__((vector_size(16)));

MA_VECTOR_CLONES void bins_of(const double* v, size_t n, const std::vector<double>& edges, uint32_t* out) {
  const uint32_t bins = static_cast<uint32_t>(edges.size() - 1);
  const double first = edges.front(), norm = static_cast<double>(bins) / (edges.back() - edges.front());
  const double step = (edges.back() - edges.front()) / bins;
  const int32_t last = static_cast<int32_t>(bins) - 1;
  const LaneIndex zero = {}, top = {last, last, last, last}, one = {1, 1, 1, 1};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes x;
    std::memcpy(&x, v + i, sizeof x);
    LaneIndex b = __builtin_convertvector((x - first) * norm, LaneIndex);
    b = b > top ? top : b;
    b = b < zero ? zero : b;
    const Lanes lower = __builtin_convertvector(b, Lanes) * step + first;
    const Lanes upper = __builtin_convertvector(b + one, Lanes) * step + first;
    const LaneIndex down = __builtin_convertvector(x < lower, LaneIndex);  // -1 where it holds
    const LaneIndex up = __builtin_convertvector(x >= upper, LaneIndex) & (b != top) & ~down;
    b += down - up;
    b = b < zero ? zero : b;
    std::memcpy(out + i, &b, sizeof b);
  }
  const HistogramBinner binner(edges);
  for (; i < n; ++i) out[i] = binner.bin(v[i]);
}

// Calls f(piece) for the tensor's values a piece at a time, reading it through the buffer; false when
// cancelled. A ggml block type is read in whole blocks: in its level form where it has one (each group's
// levels weighted by their counts), else decoded to float32 (`decoded`: scratch); either way f sees the
// values llama.cpp computes with.
template <typename F>
bool for_each_piece(const FileSource& file, uint64_t offset, uint64_t bytes, DType stored, char* buffer,
                    size_t buffer_bytes, const std::atomic<bool>* cancel, Piece& piece, F&& f) {
  const DTypeInfo& info = dtype_info(stored);
  const bool blocks = info.block_elements > 1;
  const std::optional<GgmlLevelShape> levels = blocks ? ggml_level_shape(stored) : std::nullopt;
  // Values one block yields: its elements, or its groups' levels.
  const size_t per_block =
      levels ? info.block_elements / levels->group_elements * levels->levels : info.block_elements;
  const size_t chunk = blocks ? buffer_bytes / info.block_bytes * info.block_bytes : buffer_bytes;
  const size_t blocks_per_piece = blocks ? std::max<size_t>(1, kPiece / per_block) : 0;
  std::vector<float> decoded(blocks ? blocks_per_piece * per_block : 0);
  std::vector<uint8_t> level_counts(levels ? blocks_per_piece * per_block : 0);
  const unsigned width = blocks ? 4 : dtype_bits(stored) / 8;
  for (uint64_t done = 0; done < bytes;) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return false;
    const size_t len = static_cast<size_t>(std::min<uint64_t>(chunk, bytes - done));
    file.read_exact(offset + done, len, buffer);
    done += len;
    if (!blocks) {
      for (size_t at = 0; at + width <= len; at += kPiece * width) {
        load_piece(stored, buffer + at, std::min(kPiece, (len - at) / width), piece);
        f(piece);
      }
      continue;
    }
    const size_t n = len / info.block_bytes;
    for (size_t b = 0; b < n; b += blocks_per_piece) {
      const size_t nb = std::min(blocks_per_piece, n - b);
      const uint8_t* src = reinterpret_cast<const uint8_t*>(buffer) + b * info.block_bytes;
      if (levels) {
        block_levels(stored, src, nb, decoded.data(), level_counts.data());
        load_levels(decoded.data(), level_counts.data(), nb * per_block, piece);
      } else {
        dequantize_blocks(stored, src, nb, decoded.data());
        load_piece(DType::F32, reinterpret_cast<const char*>(decoded.data()), nb * per_block, piece);
      }
      f(piece);
    }
  }
  return true;
}

// Pass 1's figures of one unit, merged in unit order once every unit has run.
struct UnitPassOne {
  PassOne one;
  uint64_t finite = 0, nan = 0, inf = 0;
};

// An order statistic a percentile needs: its rank, the key bucket it lies in and its rank inside it.
struct Wanted {
  uint64_t rank, bucket, rank_in_bucket;
  double value = 0;
};

constexpr size_t kKeyBuckets = 65536;

}  // namespace

struct WideTensorScan::State {
  State(TensorStats& stats, double eps_, uint32_t bins_, uint64_t unit_bytes)
      : s(stats), eps(eps_), bins(bins_) {
    const DTypeInfo& info = dtype_info(s.dtype);
    const bool blocks = info.block_elements > 1;
    vt = blocks ? DType::F32 : s.dtype;  // block types are decoded to float32; s.dtype stays the stored type
    width = dtype_bits(vt) / 8;
    key_shift = width * 8 - 16;
    const uint64_t align = blocks ? info.block_bytes : dtype_bits(s.dtype) / 8;
    step = std::max<uint64_t>(align, unit_bytes / align * align);
    units = static_cast<size_t>(std::max<uint64_t>(1, (s.bytes + step - 1) / step));
    first.resize(units);
    central.resize(units);
    first_left = units;
    second_left = units;
  }

  uint64_t begin(size_t u) const { return std::min<uint64_t>(s.bytes, u * step); }
  uint64_t end(size_t u) const { return std::min<uint64_t>(s.bytes, begin(u) + step); }
  void plan();    // after the last unit of pass 1
  void finish();  // after the last unit of pass 2

  TensorStats& s;
  const double eps;
  const uint32_t bins;
  DType vt = DType::F32;
  unsigned width = 4, key_shift = 16;
  uint64_t step = 0;
  size_t units = 1;
  std::mutex mutex;  // guards the merged counts below
  std::atomic<size_t> first_left, second_left;
  // Pass 1.
  std::vector<UnitPassOne> first;
  std::vector<uint64_t> prefix;  // counts per key bucket, allocated by the units, freed by plan()
  // What pass 2 needs, from plan().
  bool any_finite = false;
  double mean = 0;
  std::vector<PercentileRank> ranks;
  std::vector<Wanted> wanted;
  std::vector<uint64_t> wanted_bits;   // one bit per key bucket: does it hold a wanted order statistic?
  std::vector<uint64_t> slot_buckets;  // the wanted buckets, once each: a bucket's slot is its place here
  uint8_t slot_of(uint64_t bucket) const {
    return static_cast<uint8_t>(std::find(slot_buckets.begin(), slot_buckets.end(), bucket) -
                                slot_buckets.begin());
  }
  // Pass 2.
  std::vector<CentralMoments> central;
  std::vector<uint64_t> histogram;
  std::vector<std::vector<uint64_t>> sub;   // 32-bit keys: counts by the low 16 bits, per slot
  std::vector<std::vector<double>> values;  // 64-bit: the values of each slot's bucket
};

void WideTensorScan::State::plan() {
  PassOne one;
  for (const UnitPassOne& u : first) {
    s.nan_count += u.nan;
    s.inf_count += u.inf;
    s.finite += u.finite;
    one.sum.add(u.one.sum.sum);
    one.sum.add(u.one.sum.c);
    one.squares.add(u.one.squares.sum);
    one.squares.add(u.one.squares.c);
    one.min = std::min(one.min, u.one.min);
    one.max = std::max(one.max, u.one.max);
    one.zeros += u.one.zeros;
    one.near += u.one.near;
  }
  std::vector<UnitPassOne>().swap(first);
  s.zeros_fraction = s.numel ? static_cast<double>(one.zeros) / static_cast<double>(s.numel) : 0;
  s.near_zero_fraction = s.numel ? static_cast<double>(one.near) / static_cast<double>(s.numel) : 0;
  s.l2_norm = std::sqrt(one.squares.value());
  s.histogram.counts.assign(bins, 0);
  any_finite = s.finite > 0;
  if (!any_finite) {
    std::vector<uint64_t>().swap(prefix);
    return;
  }
  mean = one.sum.value() / static_cast<double>(s.finite);  // compensated: exact even when huge values cancel
  s.min = one.min;
  s.max = one.max;
  s.abs_max = std::max(std::fabs(one.min), std::fabs(one.max));

  // Which key buckets hold the order statistics the percentiles need, and each one's rank inside its bucket.
  for (double q : kPercentiles) {
    ranks.push_back(percentile_rank(q, s.finite));
    wanted.push_back({ranks.back().below, 0, 0});
    wanted.push_back({std::min(ranks.back().below + 1, s.finite - 1), 0, 0});
  }
  for (Wanted& w : wanted) {
    uint64_t before = 0;
    size_t b = 0;
    while (before + prefix[b] <= w.rank) before += prefix[b++];
    w.bucket = b;
    w.rank_in_bucket = w.rank - before;
  }
  std::vector<uint64_t>().swap(prefix);
  // The bits (8 KiB) stay in a core's L1 cache: the per-value test reads them, and only the few values in a
  // wanted bucket look for its slot. Pass 2's tables are allocated when it runs: a GGUF's hundreds of
  // tensors all wait between the passes.
  wanted_bits.assign(kKeyBuckets / 64, 0);
  for (const Wanted& w : wanted) {
    if (std::find(slot_buckets.begin(), slot_buckets.end(), w.bucket) == slot_buckets.end())
      slot_buckets.push_back(w.bucket);
    wanted_bits[w.bucket / 64] |= uint64_t{1} << (w.bucket % 64);
  }
  auto [lo, hi] = histogram_range(one.min, one.max);
  s.histogram.edges = histogram_edges(lo, hi, bins);
}

void WideTensorScan::State::finish() {
  if (!any_finite) return;
  s.histogram.counts = std::move(histogram);
  for (Wanted& w : wanted) {
    const uint8_t slot = slot_of(w.bucket);
    if (width == 4) {
      uint64_t before = 0;
      size_t low = 0;
      while (before + sub[slot][low] <= w.rank_in_bucket) before += sub[slot][low++];
      w.value = element_value(vt, key_bits(vt, (w.bucket << 16) | low));
    } else {
      std::vector<double>& v = values[slot];
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(w.rank_in_bucket), v.end());
      w.value = v[w.rank_in_bucket];
    }
  }
  for (size_t i = 0; i < ranks.size(); ++i)
    s.percentiles[i] = interpolate(wanted[2 * i].value, wanted[2 * i + 1].value, ranks[i].fraction);
  CentralMoments total;
  for (const CentralMoments& c : central) {
    for (auto [into, from] : {std::pair{&total.m2, &c.m2}, {&total.m3, &c.m3}, {&total.m4, &c.m4}}) {
      into->add(from->sum);
      into->add(from->c);
    }
  }
  apply_moments(
      s, Moments{static_cast<double>(s.finite), mean, total.m2.value(), total.m3.value(), total.m4.value()});
  std::vector<std::vector<uint64_t>>().swap(sub);
  std::vector<std::vector<double>>().swap(values);
  std::vector<uint64_t>().swap(wanted_bits);
}

WideTensorScan::WideTensorScan(TensorStats& s, double eps, uint32_t bins, uint64_t unit_bytes)
    : state_(std::make_unique<State>(s, eps, bins, unit_bytes)) {}

WideTensorScan::~WideTensorScan() = default;

size_t WideTensorScan::units() const {
  return state_->units;
}

uint64_t WideTensorScan::unit_bytes(size_t unit) const {
  return state_->end(unit) - state_->begin(unit);
}

bool WideTensorScan::first_pass(size_t unit, const FileSource& file, uint64_t offset, char* buffer,
                                size_t buffer_bytes, const std::atomic<bool>* cancel) {
  State& st = *state_;
  UnitPassOne& r = st.first[unit];
  // A tensor of one unit counts into the shared table, which nothing else touches meanwhile.
  const bool own = st.units > 1;
  if (!own) st.prefix.assign(kKeyBuckets, 0);
  std::vector<uint64_t> own_prefix(own ? kKeyBuckets : 0, 0);
  uint64_t* buckets = own ? own_prefix.data() : st.prefix.data();
  const unsigned shift = st.key_shift;
  const double eps = st.eps;
  Piece piece;
  const bool complete =
      for_each_piece(file, offset + st.begin(unit), unit_bytes(unit), st.s.dtype, buffer, buffer_bytes,
                     cancel, piece, [&](Piece& p) {
                       r.nan += p.nan;
                       r.inf += p.inf;
                       p.nan = p.inf = 0;
                       r.finite += p.elements;
                       if (p.weighted) {
                         add_weighted_pass_one(p.values.data(), p.weights.data(), p.n, eps, r.one);
                         const uint32_t* counts = p.counts.data();
                         for (size_t i = 0; i < p.n; ++i) buckets[p.keys[i] >> shift] += counts[i];
                       } else {
                         add_pass_one(p.values.data(), p.n, eps, r.one);
                         for (size_t i = 0; i < p.n; ++i) ++buckets[p.keys[i] >> shift];
                       }
                     });
  if (!complete) return false;
  if (own) {
    std::lock_guard lock(st.mutex);
    if (st.prefix.empty()) st.prefix.assign(kKeyBuckets, 0);
    for (size_t b = 0; b < kKeyBuckets; ++b) st.prefix[b] += own_prefix[b];
  }
  if (st.first_left.fetch_sub(1, std::memory_order_acq_rel) == 1) st.plan();
  return true;
}

bool WideTensorScan::second_pass(size_t unit, const FileSource& file, uint64_t offset, char* buffer,
                                 size_t buffer_bytes, const std::atomic<bool>* cancel) {
  State& st = *state_;
  if (st.any_finite) {
    const uint32_t bins = st.bins;
    const unsigned shift = st.key_shift;
    const bool narrow = st.width == 4;
    std::vector<uint32_t> bin_of(kPiece);
    // Four interleaved tables: runs of equal bins (the centre of a weight distribution) would otherwise make
    // each increment wait for the one before.
    std::vector<uint64_t> bin_counts(4 * static_cast<size_t>(bins), 0);
    // A tensor of one unit collects into the shared tables, as in pass 1.
    const bool own = st.units > 1;
    const size_t slots = st.slot_buckets.size();
    if (!own) {
      st.histogram.assign(bins, 0);
      st.sub.assign(narrow ? slots : 0, std::vector<uint64_t>(kKeyBuckets, 0));
      st.values.resize(narrow ? 0 : slots);
    }
    std::vector<std::vector<uint64_t>> own_sub(own && narrow ? slots : 0,
                                               std::vector<uint64_t>(kKeyBuckets, 0));
    std::vector<std::vector<double>> own_values(own && !narrow ? slots : 0);
    std::vector<std::vector<uint64_t>>& sub = own ? own_sub : st.sub;
    std::vector<std::vector<double>>& values = own ? own_values : st.values;
    CentralMoments& central = st.central[unit];
    const std::vector<double>& edges = st.s.histogram.edges;
    const uint64_t* bits = st.wanted_bits.data();
    const double mean = st.mean;
    Piece piece;
    const bool complete =
        for_each_piece(file, offset + st.begin(unit), unit_bytes(unit), st.s.dtype, buffer, buffer_bytes,
                       cancel, piece, [&](Piece& p) {
                         p.nan = p.inf = 0;
                         const double* v = p.values.data();
                         if (p.weighted)
                           add_weighted_central_moments(v, p.weights.data(), p.n, mean, central);
                         else
                           add_central_moments(v, p.n, mean, central);
                         const size_t n_values = p.n;
                         bins_of(v, n_values, edges, bin_of.data());
                         uint64_t* counts = bin_counts.data();
                         const uint32_t* b = bin_of.data();
                         size_t at = 0;
                         if (p.weighted) {
                           const uint32_t* w = p.counts.data();
                           for (; at + 4 <= n_values; at += 4)
                             for (size_t j = 0; j < 4; ++j) counts[j * bins + b[at + j]] += w[at + j];
                           for (; at < n_values; ++at) counts[b[at]] += w[at];
                         } else {
                           for (; at + 4 <= n_values; at += 4)
                             for (size_t j = 0; j < 4; ++j) ++counts[j * bins + b[at + j]];
                           for (; at < n_values; ++at) ++counts[b[at]];
                         }
                         for (size_t i = 0; i < n_values; ++i) {
                           const uint64_t key = p.keys[i], bucket = key >> shift;
                           if (!((bits[bucket / 64] >> (bucket % 64)) & 1)) continue;
                           const uint8_t slot = st.slot_of(bucket);
                           if (narrow)
                             sub[slot][key & 0xffff] += p.weighted ? p.counts[i] : 1;
                           else
                             values[slot].push_back(v[i]);  // 64-bit types: never weighted
                         }
                       });
    if (!complete) return false;
    std::lock_guard lock(st.mutex);
    if (st.histogram.empty()) {
      st.histogram.assign(bins, 0);
      st.sub.assign(narrow ? slots : 0, std::vector<uint64_t>(kKeyBuckets, 0));
      st.values.resize(narrow ? 0 : slots);
    }
    for (size_t j = 0; j < 4; ++j)
      for (uint32_t k = 0; k < bins; ++k) st.histogram[k] += bin_counts[j * bins + k];
    for (size_t slot = 0; slot < own_sub.size(); ++slot)
      for (size_t k = 0; k < kKeyBuckets; ++k) st.sub[slot][k] += own_sub[slot][k];
    for (size_t slot = 0; slot < own_values.size(); ++slot)
      st.values[slot].insert(st.values[slot].end(), own_values[slot].begin(), own_values[slot].end());
  }
  if (st.second_left.fetch_sub(1, std::memory_order_acq_rel) == 1) st.finish();
  return true;
}

}  // namespace ma
