#include "analysis/wide_tensor_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
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
        s.finite += p.elements;
        uint64_t* buckets = prefix.data();
        const unsigned shift = key_shift;
        if (p.weighted) {
          add_weighted_pass_one(p.values.data(), p.weights.data(), p.n, eps, one);
          const uint32_t* counts = p.counts.data();
          for (size_t i = 0; i < p.n; ++i) buckets[p.keys[i] >> shift] += counts[i];
        } else {
          add_pass_one(p.values.data(), p.n, eps, one);
          for (size_t i = 0; i < p.n; ++i) ++buckets[p.keys[i] >> shift];
        }
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
  // The same as one bit per bucket (8 KiB), which stays in a core's L1 cache where slot_of (64 KiB) does not:
  // the per-value test reads it, slot_of only for the few values in a wanted bucket.
  std::vector<uint64_t> wanted_bits(65536 / 64, 0);
  size_t slots = 0;
  for (const Wanted& w : wanted) {
    if (slot_of[w.bucket] == kNotWanted) slot_of[w.bucket] = static_cast<uint8_t>(slots++);
    wanted_bits[w.bucket / 64] |= uint64_t{1} << (w.bucket % 64);
  }

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
        if (p.weighted)
          add_weighted_central_moments(v, p.weights.data(), p.n, mean, central);
        else
          add_central_moments(v, p.n, mean, central);
        // Four interleaved tables: runs of equal bins (the centre of a weight distribution) would otherwise
        // make each increment wait for the one before.
        const size_t n_values = p.n;
        bins_of(v, n_values, s.histogram.edges, bin_of.data());
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
        const uint64_t* bits = wanted_bits.data();
        const unsigned shift = key_shift;
        for (size_t i = 0; i < n_values; ++i) {
          const uint64_t key = p.keys[i], bucket = key >> shift;
          if (!((bits[bucket / 64] >> (bucket % 64)) & 1)) continue;
          const uint8_t slot = slot_of[bucket];
          if (width == 4)
            sub[slot][key & 0xffff] += p.weighted ? p.counts[i] : 1;
          else
            values[slot].push_back(v[i]);  // 64-bit types: never weighted
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
