#include "analysis/wide_stats_kernels.h"

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

namespace ma::wide_stats {

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

namespace {

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

MA_VECTOR_CLONES void pass_one_unweighted(const double* v, size_t n, double eps, PassOne& r) {
  pass_one<false>(v, nullptr, n, eps, r);
}

MA_VECTOR_CLONES void pass_one_weighted(const double* v, const double* w, size_t n, double eps, PassOne& r) {
  pass_one<true>(v, w, n, eps, r);
}

// Pass 2's sums of (x - mean)^2, ^3 and ^4 about pass 1's mean (numpy's two-pass variance), each value w
// times.
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

MA_VECTOR_CLONES void central_moments_unweighted(const double* v, size_t n, double mean, CentralMoments& c) {
  central_moments<false>(v, nullptr, n, mean, c);
}

MA_VECTOR_CLONES void central_moments_weighted(const double* v, const double* w, size_t n, double mean,
                                               CentralMoments& c) {
  central_moments<true>(v, w, n, mean, c);
}

}  // namespace

void add_pass_one(const Piece& p, double eps, PassOne& r) {
  if (p.weighted)
    pass_one_weighted(p.values.data(), p.weights.data(), p.n, eps, r);
  else
    pass_one_unweighted(p.values.data(), p.n, eps, r);
}

void count_key_buckets(const Piece& p, unsigned shift, uint64_t* buckets) {
  if (p.weighted) {
    for (size_t i = 0; i < p.n; ++i) buckets[p.keys[i] >> shift] += p.counts[i];
  } else {
    for (size_t i = 0; i < p.n; ++i) ++buckets[p.keys[i] >> shift];
  }
}

void add_central_moments(const Piece& p, double mean, CentralMoments& c) {
  if (p.weighted)
    central_moments_weighted(p.values.data(), p.weights.data(), p.n, mean, c);
  else
    central_moments_unweighted(p.values.data(), p.n, mean, c);
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

bool for_each_piece(const FileSource& file, uint64_t offset, uint64_t bytes, DType stored, char* buffer,
                    size_t buffer_bytes, const std::atomic<bool>* cancel, Piece& piece,
                    const std::function<void(Piece&)>& f) {
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

}  // namespace ma::wide_stats
