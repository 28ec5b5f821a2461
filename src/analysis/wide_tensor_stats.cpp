#include "analysis/wide_tensor_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#include "analysis/stats_math.h"
#include "core/dtype_values.h"
#include "core/vector_clones.h"
#include "formats/ggml_dequant.h"

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

// The finite values of one piece with their order keys; NaN and ±Inf are counted and left out.
struct Piece {
  std::vector<double> values = std::vector<double>(kPiece);
  std::vector<uint64_t> keys = std::vector<uint64_t>(kPiece);
  size_t n = 0;
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

MA_VECTOR_CLONES void add_pass_one(const double* v, size_t n, double eps, PassOne& r) {
  const LaneMask magnitude = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  LaneSum s, q;
  Lanes lo = {INFINITY, INFINITY, INFINITY, INFINITY};
  Lanes hi = -lo;
  LaneMask z = {}, e = {};  // a comparison gives -1 in each lane where it holds
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes x;
    std::memcpy(&x, v + i, sizeof x);
    s.add(x);
    q.add(x * x);
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    z -= x == 0;
    e -= (Lanes)((LaneMask)x & magnitude) <= eps;
  }
  s.flush_into(r.sum);
  q.flush_into(r.squares);
  for (size_t j = 0; j < kLanes; ++j) {
    r.min = std::min(r.min, lo[j]);
    r.max = std::max(r.max, hi[j]);
    r.zeros += static_cast<uint64_t>(z[j]);
    r.near += static_cast<uint64_t>(e[j]);
  }
  for (; i < n; ++i) {
    const double x = v[i];
    r.sum.add(x);
    r.squares.add(x * x);
    r.min = std::min(r.min, x);
    r.max = std::max(r.max, x);
    r.zeros += x == 0;
    r.near += std::fabs(x) <= eps;
  }
}

// Pass 2's sums of (x - mean)^2, ^3 and ^4 about pass 1's mean (numpy's two-pass variance).
struct CentralMoments {
  CompensatedSum m2, m3, m4;
};

MA_VECTOR_CLONES void add_central_moments(const double* v, size_t n, double mean, CentralMoments& c) {
  LaneSum a2, a3, a4;
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes x;
    std::memcpy(&x, v + i, sizeof x);
    const Lanes d = x - mean, d2 = d * d;
    a2.add(d2);
    a3.add(d2 * d);
    a4.add(d2 * d2);
  }
  a2.flush_into(c.m2);
  a3.flush_into(c.m3);
  a4.flush_into(c.m4);
  for (; i < n; ++i) {
    const double d = v[i] - mean, d2 = d * d;
    c.m2.add(d2);
    c.m3.add(d2 * d);
    c.m4.add(d2 * d2);
  }
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
// cancelled. A ggml block type is read in whole blocks and decoded to float32 first (`decoded`: scratch), so
// f sees the values llama.cpp computes with.
template <typename F>
bool for_each_piece(const FileSource& file, uint64_t offset, uint64_t bytes, DType stored, char* buffer,
                    size_t buffer_bytes, const std::atomic<bool>* cancel, Piece& piece, F&& f) {
  const DTypeInfo& info = dtype_info(stored);
  const bool blocks = info.block_elements > 1;
  const size_t chunk = blocks ? buffer_bytes / info.block_bytes * info.block_bytes : buffer_bytes;
  const size_t blocks_per_piece = blocks ? std::max<size_t>(1, kPiece / info.block_elements) : 0;
  std::vector<float> decoded(blocks ? blocks_per_piece * info.block_elements : 0);
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
      dequantize_blocks(stored, reinterpret_cast<const uint8_t*>(buffer) + b * info.block_bytes, nb,
                        decoded.data());
      load_piece(DType::F32, reinterpret_cast<const char*>(decoded.data()), nb * info.block_elements, piece);
      f(piece);
    }
  }
  return true;
}

}  // namespace

bool wide_tensor_stats(TensorStats& s, const FileSource& file, uint64_t offset, char* buffer,
                       size_t buffer_bytes, double eps, uint32_t bins, const std::atomic<bool>* cancel) {
  // Block types are decoded to float32: their values are F32's, their stored type stays s.dtype.
  const DType vt = is_block_type(s.dtype) ? DType::F32 : s.dtype;
  const unsigned width = dtype_bits(vt) / 8;
  const unsigned key_shift = width * 8 - 16;
  Piece piece;
  std::vector<uint64_t> prefix(65536, 0);
  PassOne one;
  const bool complete =
      for_each_piece(file, offset, s.bytes, s.dtype, buffer, buffer_bytes, cancel, piece, [&](Piece& p) {
        s.nan_count += p.nan;
        s.inf_count += p.inf;
        p.nan = p.inf = 0;
        s.finite += p.n;
        add_pass_one(p.values.data(), p.n, eps, one);
        uint64_t* buckets = prefix.data();
        const unsigned shift = key_shift;
        for (size_t i = 0; i < p.n; ++i) ++buckets[p.keys[i] >> shift];
      });
  if (!complete) return false;
  s.zeros_fraction = s.numel ? static_cast<double>(one.zeros) / static_cast<double>(s.numel) : 0;
  s.near_zero_fraction = s.numel ? static_cast<double>(one.near) / static_cast<double>(s.numel) : 0;
  s.l2_norm = std::sqrt(one.squares.value());
  s.histogram.counts.assign(bins, 0);
  if (s.finite == 0) return true;
  const double n = static_cast<double>(s.finite);
  const double mean = one.sum.value() / n;  // compensated: exact even when huge values cancel
  s.min = one.min;
  s.max = one.max;
  s.abs_max = std::max(std::fabs(one.min), std::fabs(one.max));

  // Which key buckets hold the order statistics the percentiles need, and each one's rank inside its bucket.
  struct Wanted {
    uint64_t rank, bucket, rank_in_bucket;
    double value = 0;
  };
  std::vector<Wanted> wanted;
  std::vector<PercentileRank> pr;
  for (double q : kPercentiles) {
    pr.push_back(percentile_rank(q, s.finite));
    wanted.push_back({pr.back().below, 0, 0});
    wanted.push_back({std::min(pr.back().below + 1, s.finite - 1), 0, 0});
  }
  for (Wanted& w : wanted) {
    uint64_t before = 0;
    size_t b = 0;
    while (before + prefix[b] <= w.rank) before += prefix[b++];
    w.bucket = b;
    w.rank_in_bucket = w.rank - before;
  }
  // slot_of[bucket]: the bucket's place among the wanted ones, kNotWanted for the others.
  constexpr uint8_t kNotWanted = 0xff;
  std::vector<uint8_t> slot_of(65536, kNotWanted);
  size_t slots = 0;
  for (const Wanted& w : wanted)
    if (slot_of[w.bucket] == kNotWanted) slot_of[w.bucket] = static_cast<uint8_t>(slots++);

  auto [first, last] = histogram_range(one.min, one.max);
  s.histogram.edges = histogram_edges(first, last, bins);
  s.histogram.counts.assign(bins, 0);
  std::vector<uint32_t> bin_of(kPiece);
  std::vector<uint64_t> bin_counts(4 * static_cast<size_t>(bins), 0);
  // 32-bit keys: the low 16 bits inside each wanted bucket pin the value down exactly. 64-bit: the values.
  std::vector<std::vector<uint64_t>> sub(width == 4 ? slots : 0, std::vector<uint64_t>(65536, 0));
  std::vector<std::vector<double>> values(width == 8 ? slots : 0);
  CentralMoments central;
  const bool second_complete =
      for_each_piece(file, offset, s.bytes, s.dtype, buffer, buffer_bytes, cancel, piece, [&](Piece& p) {
        p.nan = p.inf = 0;
        const double* v = p.values.data();
        add_central_moments(v, p.n, mean, central);
        // Four interleaved tables: runs of equal bins (the centre of a weight distribution) would otherwise
        // make each increment wait for the one before.
        const size_t n_values = p.n;
        bins_of(v, n_values, s.histogram.edges, bin_of.data());
        uint64_t* counts = bin_counts.data();
        const uint32_t* b = bin_of.data();
        size_t at = 0;
        for (; at + 4 <= n_values; at += 4)
          for (size_t j = 0; j < 4; ++j) ++counts[j * bins + b[at + j]];
        for (; at < n_values; ++at) ++counts[b[at]];
        const uint8_t* slot_table = slot_of.data();
        const unsigned shift = key_shift;
        for (size_t i = 0; i < n_values; ++i) {
          const uint64_t key = p.keys[i];
          const uint8_t slot = slot_table[key >> shift];
          if (slot == kNotWanted) continue;
          if (width == 4)
            ++sub[slot][key & 0xffff];
          else
            values[slot].push_back(v[i]);
        }
      });
  if (!second_complete) return false;
  for (size_t j = 0; j < 4; ++j)
    for (uint32_t b = 0; b < bins; ++b) s.histogram.counts[b] += bin_counts[j * bins + b];
  for (Wanted& w : wanted) {
    const uint8_t slot = slot_of[w.bucket];
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
  for (size_t i = 0; i < pr.size(); ++i)
    s.percentiles[i] = interpolate(wanted[2 * i].value, wanted[2 * i + 1].value, pr[i].fraction);
  apply_moments(s, Moments{n, mean, central.m2.value(), central.m3.value(), central.m4.value()});
  return true;
}

}  // namespace ma
