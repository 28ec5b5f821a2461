#include "analysis/wide_stats_kernels.h"

#include <algorithm>
#include <bit>
#include <cfloat>
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
    case DType::F32:
      return float_key(std::bit_cast<float>(static_cast<uint32_t>(bits)));
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

// True for the bits of a float32 NaN or ±Inf (an exponent of all ones).
inline bool nan_or_inf_bits(uint32_t u) {
  return (u & 0x7f800000u) == 0x7f800000u;
}

// Fills `piece` from `count` (≤ kPiece) stored elements of value type `vt` at `p`.
void load_piece(DType vt, const char* p, size_t count, Piece& piece) {
  piece.floats = nullptr;
  piece.counts = nullptr;
  piece.buckets = nullptr;
  if (piece.values.size() < kPiece) {
    piece.values.resize(kPiece);
    piece.keys.resize(kPiece);
  }
  // Float32 pieces come here only when they hold a NaN or ±Inf (float_piece reads the others in place).
  const unsigned width = dtype_bits(vt) / 8;
  bool all_finite = true;
  for (size_t i = 0; i < count; ++i) {
    uint64_t u = 0;
    std::memcpy(&u, p + width * i, width);
    const double v = element_value(vt, u);
    piece.values[i] = v;
    piece.keys[i] = order_key(vt, u);
    all_finite &= v - v == 0;
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

// The float form's key buckets of n floats, computed vectorised with the test for a NaN or ±Inf (true when
// there is none); and the level form's, with the sum of the counts.
MA_VECTOR_CLONES bool scan_floats(const float* __restrict v, size_t n, uint16_t* __restrict buckets) {
  uint32_t special = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, v + i, 4);
    special |= nan_or_inf_bits(u);
    buckets[i] = static_cast<uint16_t>(float_key(v[i]) >> 16);
  }
  return special == 0;
}

MA_VECTOR_CLONES bool scan_levels(const float* __restrict levels, const uint8_t* __restrict counts, size_t n,
                                  uint16_t* __restrict buckets, uint64_t& elements) {
  uint32_t special = 0, sum = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, levels + i, 4);
    special |= nan_or_inf_bits(u);
    sum += counts[i];
    buckets[i] = static_cast<uint16_t>(float_key(levels[i]) >> 16);
  }
  elements = sum;
  return special == 0;
}

// Where a float-form piece's buckets go.
uint16_t* bucket_space(Piece& piece) {
  if (piece.float_buckets.size() < kPiece) piece.float_buckets.resize(kPiece);
  return piece.float_buckets.data();
}

void point_at_floats(const float* v, const uint8_t* counts, size_t n, Piece& piece) {
  piece.floats = v;
  piece.counts = counts;
  piece.buckets = piece.float_buckets.data();
  piece.n = n;
}

// Points `piece` at `n` float32 values, in place; a piece with a NaN or ±Inf goes to the double form, which
// leaves them out.
void float_piece(const float* v, size_t n, Piece& piece) {
  if (!scan_floats(v, n, bucket_space(piece))) {
    load_piece(DType::F32, reinterpret_cast<const char*>(v), n, piece);
    return;
  }
  point_at_floats(v, nullptr, n, piece);
  piece.elements = n;
}

// Points `piece` at `n` levels of a ggml block type and their counts, in place. A NaN or infinite level is
// counted by its count into NaN or ±Inf and set to 0 with a count of 0: the loops below then add nothing for
// it, as for any level no element holds. The rare piece that has one is mended level by level.
void level_piece(float* levels, uint8_t* counts, size_t n, Piece& piece) {
  const bool finite = scan_levels(levels, counts, n, bucket_space(piece), piece.elements);
  point_at_floats(levels, counts, n, piece);
  // A piece holds at most kPiece levels of at most 32 elements each: its sum fits the 32 bits counted in.
  static_assert(kPiece * 32 <= UINT32_MAX);
  if (finite) return;
  for (size_t i = 0; i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, levels + i, 4);
    if (!nan_or_inf_bits(u)) continue;
    ((u & 0x007fffffu) ? piece.nan : piece.inf) += counts[i];
    piece.elements -= counts[i];
    levels[i] = 0;
    counts[i] = 0;
    piece.float_buckets[i] = static_cast<uint16_t>(float_key(0.0f) >> 16);
  }
}

// The per-value loops run in lanes of vector registers (GCC/Clang vector extensions: the compiler's own
// vectoriser gives up on these reductions), each sum compensated in its lane by Knuth's TwoSum, which needs
// no branch: a sum of 3e38 and 0.1 keeps the 0.1, as the scalar compensated sum (math.fsum) does. The lanes
// enter the caller's compensated totals in a fixed order, so a result never depends on which build ran.
// Sums of float forms and central moments run in eight lanes (EightLanes below): the central moments of a
// Q4_K GGUF's levels went from 13% of its stats to 6% on AVX-512. GCC 12 turns comparisons of eight doubles
// into scalar code (pass 1 twice as slow), so pass 1 compares the float forms as eight floats (one AVX2
// register) and the double form as four doubles.
using Lanes = double __attribute__((vector_size(32)));
using LaneMask = int64_t __attribute__((vector_size(32)));
constexpr size_t kLanes = 4;
using WideLanes = double __attribute__((vector_size(64)));
constexpr size_t kWideLanes = 8;

template <typename V>
struct LaneSumOf {
  static constexpr size_t kN = sizeof(V) / sizeof(double);
  V sum = {}, error = {};
  void add(const V& x) {  // by reference: a 32-byte vector by value changes the ABI without AVX
    const V t = sum + x, z = t - sum;
    error += (sum - (t - z)) + (x - z);
    sum = t;
  }
  // For terms that are never negative (squares, even central moments): the running sum is at least as large
  // as each term but one that outgrows every term before it, so Dekker's Fast2Sum (three additions where
  // TwoSum takes six) is exact for all others. Where a term outgrows the sum, the error it keeps is off by
  // at most half a unit in the new sum's last place, and such terms at least double the sum: all of them
  // together cost a lane's sum at most one unit in its last place. The loops are bound by additions.
  void add_growing(const V& x) {
    const V t = sum + x;
    error += x - (t - sum);
    sum = t;
  }
  void flush_into(CompensatedSum& total) const {
    for (size_t j = 0; j < kN; ++j) {
      total.add(sum[j]);
      total.add(error[j]);
    }
  }
};

using LaneSum = LaneSumOf<Lanes>;
using WideLaneSum = LaneSumOf<WideLanes>;

// Eight lanes as one vector of eight doubles (one AVX-512 register), or as two vectors of four held in
// variables of their own (two AVX2 registers). A vector of eight on AVX2 is not two registers to GCC 12: it
// lives in memory, each operation loading and storing its halves, and pass 1's sums spent 33% of stats on a
// Q4_K GGUF there (25% as two vectors). Element i + k of a step goes to lane k either way, and the lanes are
// flushed in the same order, so both give the same bits.
template <typename V>
struct EightLanes {
  using Vector = V;
  static constexpr size_t kWidth = sizeof(V) / sizeof(double), kVectors = kWideLanes / kWidth;
};
using OneVectorOfEight = EightLanes<WideLanes>;
using TwoVectorsOfFour = EightLanes<Lanes>;

// Values as doubles: four from doubles (the double form, pass 1), eight from doubles or floats (the central
// moments), and eight counts (the level form's weights).
using Floats8 = float __attribute__((vector_size(32)));

[[gnu::always_inline]] inline void load_lanes(const double* v, Lanes& x) {
  std::memcpy(&x, v, sizeof x);
}

[[gnu::always_inline]] inline void load_lanes(const double* v, WideLanes& x) {
  std::memcpy(&x, v, sizeof x);
}

[[gnu::always_inline]] inline void load_lanes(const float* v, WideLanes& x) {
  Floats8 f;
  std::memcpy(&f, v, sizeof f);
  x = __builtin_convertvector(f, WideLanes);
}

[[gnu::always_inline]] inline void load_lanes(const float* v, Lanes& x) {
  using Floats4 = float __attribute__((vector_size(16)));
  Floats4 f;
  std::memcpy(&f, v, sizeof f);
  x = __builtin_convertvector(f, Lanes);
}

// Four counts (bytes) as doubles, as below.
[[gnu::always_inline]] inline void load_lanes(const uint8_t* c, Lanes& x) {
  using Wide = uint64_t __attribute__((vector_size(32)));
  uint32_t four;
  std::memcpy(&four, c, sizeof four);
  const Wide shifts = {0, 8, 16, 24}, none = {};
  const Wide bits = ((none + four) >> shifts & 0xff) | 0x4330000000000000ull;
  x = (Lanes)bits - 0x1p52;
}

// Eight counts (bytes) as doubles: each byte shifted into its own 64-bit lane becomes the double 2^52 + c by
// its bits, less 2^52. Written as a vector conversion of bytes, the compiler made it scalar conversions and
// shuffles.
[[gnu::always_inline]] inline void load_lanes(const uint8_t* c, WideLanes& x) {
  using Wide = uint64_t __attribute__((vector_size(64)));
  uint64_t eight;
  std::memcpy(&eight, c, sizeof eight);
  const Wide shifts = {0, 8, 16, 24, 32, 40, 48, 56}, none = {};
  const Wide bits = ((none + eight) >> shifts & 0xff) | 0x4330000000000000ull;
  x = (WideLanes)bits - 0x1p52;
}

// The double form (doubles, four lanes): the sums of the values and their squares, the least and greatest,
// and how many are zero and within eps of it.
[[gnu::always_inline]] inline void pass_one_of_doubles(const double* v, size_t n, double eps, PassOne& r) {
  const LaneMask magnitude = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
  LaneSum s, q;
  Lanes lo = {INFINITY, INFINITY, INFINITY, INFINITY};
  Lanes hi = -lo;
  LaneMask z = {}, e = {};  // a comparison gives -1 in each lane where it holds
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes x;
    load_lanes(v + i, x);
    s.add(x);
    q.add_growing(x * x);
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
    r.sum.add(v[i]);
    r.squares.add(v[i] * v[i]);
    r.min = std::min(r.min, v[i]);
    r.max = std::max(r.max, v[i]);
    r.zeros += v[i] == 0;
    r.near += std::fabs(v[i]) <= eps;
  }
}

// The float forms, eight values at a time. Each value x enters as w copies: w * x and w * x * x are exact
// (x is a float32, w at most 32, so they fit in a double's 53 bits), summed in eight double lanes. The
// comparisons (least, greatest, zero, near zero) are made on the floats themselves, eight in one AVX2
// register, and count into 32-bit lanes (a piece's weights sum to under 2^32); near zero compares |x| with
// the greatest float not above eps, which holds for a float exactly when |x| <= eps does. Unweighted (the
// float form: Weighted = false, `w` unread), every weight is the constant 1 and the compiler drops the
// multiplications: the float form pays nothing for the level form.
using Ints8 = int32_t __attribute__((vector_size(32)));

// The greatest float32 not above `eps`: a float is at most it exactly when it is at most eps.
// Outside the floats' range a conversion is undefined, so those ends are answered first.
float float_at_most(double eps) {
  if (std::isnan(eps)) return NAN;
  if (eps >= FLT_MAX) return eps == INFINITY ? INFINITY : FLT_MAX;
  if (eps < -FLT_MAX) return -INFINITY;
  float f = static_cast<float>(eps);
  if (static_cast<double>(f) > eps) f = std::nextafter(f, -INFINITY);
  return f;
}

// Eight counts (bytes) as eight 32-bit integers: each half's four bytes broadcast and shifted into their
// lanes. Written as a vector conversion of bytes, GCC 12 extracted and inserted them one by one.
[[gnu::always_inline]] inline void load_counts(const uint8_t* c, Ints8& out) {
  using Words8 = uint32_t __attribute__((vector_size(32)));
  uint32_t low, high;
  std::memcpy(&low, c, 4);
  std::memcpy(&high, c + 4, 4);
  const Words8 words = {low, low, low, low, high, high, high, high};
  const Words8 shifts = {0, 8, 16, 24, 0, 8, 16, 24};
  out = (Ints8)(words >> shifts & 0xff);
}

// The sums of the float forms: of w * x and w * x * x, in eight lanes. Returns how many values it summed
// (whole steps of eight); the caller sums the rest.
template <typename Eight, bool Weighted>
[[gnu::always_inline]] inline size_t pass_one_sums(const float* v, const uint8_t* w, size_t n, PassOne& r) {
  using V = typename Eight::Vector;
  constexpr size_t kWidth = Eight::kWidth, kVectors = Eight::kVectors;
  LaneSumOf<V> s[kVectors], q[kVectors];
  const size_t whole = n / kWideLanes * kWideLanes;
  for (size_t i = 0; i < whole; i += kWideLanes) {
    for (size_t k = 0; k < kVectors; ++k) {
      V x;
      load_lanes(v + i + k * kWidth, x);
      if constexpr (Weighted) {
        V c;
        load_lanes(w + i + k * kWidth, c);
        const V cx = c * x;
        s[k].add(cx);
        q[k].add_growing(cx * x);
      } else {
        s[k].add(x);
        q[k].add_growing(x * x);
      }
    }
  }
  for (const LaneSumOf<V>& l : s) l.flush_into(r.sum);
  for (const LaneSumOf<V>& l : q) l.flush_into(r.squares);
  return whole;
}

template <typename Eight, bool Weighted>
[[gnu::always_inline]] inline void pass_one_of_floats(const float* v, const uint8_t* w, size_t n, double eps,
                                                      PassOne& r) {
  // The sums and the comparisons are two loops over the piece (in L2), each with few enough running vectors
  // for AVX2's sixteen registers: as one loop, its twelve accumulators and its constants spilled.
  const size_t whole = pass_one_sums<Eight, Weighted>(v, w, n, r);
  const float near = float_at_most(eps);
  const Ints8 magnitude = Ints8{} + 0x7fffffff;
  Floats8 lo = Floats8{} + INFINITY;
  Floats8 hi = -lo;
  Ints8 z = {}, e = {};
  for (size_t i = 0; i < whole; i += kWideLanes) {
    Floats8 f;
    std::memcpy(&f, v + i, sizeof f);
    const Ints8 zero = f == 0, small = (Floats8)((Ints8)f & magnitude) <= near;
    if constexpr (Weighted) {
      Ints8 ci;
      load_counts(w + i, ci);
      const Ints8 held = ci > 0;
      lo = (f < lo) & held ? f : lo;
      hi = (f > hi) & held ? f : hi;
      z += zero & ci;
      e += small & ci;
    } else {
      lo = f < lo ? f : lo;
      hi = f > hi ? f : hi;
      z -= zero;
      e -= small;
    }
  }
  for (size_t j = 0; j < kWideLanes; ++j) {
    r.min = std::min(r.min, static_cast<double>(lo[j]));
    r.max = std::max(r.max, static_cast<double>(hi[j]));
    r.zeros += static_cast<uint32_t>(z[j]);
    r.near += static_cast<uint32_t>(e[j]);
  }
  for (size_t i = whole; i < n; ++i) {
    const double x = static_cast<double>(v[i]), c = Weighted ? w[i] : 1.0, cx = c * x;
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

MA_VECTOR_CLONES void pass_one_doubles(const double* v, size_t n, double eps, PassOne& r) {
  pass_one_of_doubles(v, n, eps, r);
}

// Pass 2's sums of (x - mean)^2 and ^4 about pass 1's mean (numpy's two-pass variance), each value w times.
template <typename Eight, bool Weighted, typename Value>
[[gnu::always_inline]] inline void central_moments(const Value* v, const uint8_t* w, size_t n, double mean,
                                                   CentralMoments& c) {
  using V = typename Eight::Vector;
  constexpr size_t kWidth = Eight::kWidth, kVectors = Eight::kVectors;
  LaneSumOf<V> a2[kVectors], a4[kVectors];
  size_t i = 0;
  for (; i + kWideLanes <= n; i += kWideLanes) {
    for (size_t k = 0; k < kVectors; ++k) {
      V x;
      load_lanes(v + i + k * kWidth, x);
      const V d = x - mean, d2 = d * d;
      V kd2 = d2;
      if constexpr (Weighted) {
        V count;
        load_lanes(w + i + k * kWidth, count);
        kd2 = count * d2;
      }
      a2[k].add_growing(kd2);
      a4[k].add_growing(kd2 * d2);
    }
  }
  for (const LaneSumOf<V>& l : a2) l.flush_into(c.m2);
  for (const LaneSumOf<V>& l : a4) l.flush_into(c.m4);
  for (; i < n; ++i) {
    const double d = static_cast<double>(v[i]) - mean, d2 = d * d, kd2 = Weighted ? w[i] * d2 : d2;
    c.m2.add(kd2);
    c.m4.add(kd2 * d2);
  }
}

// The loops with sums in eight lanes are built twice: in one vector of eight for x86-64-v4 (AVX-512) alone,
// called where the CPU has it, and in two vectors of four as the clones for every other CPU.
MA_X86_64_V4 void pass_one_floats_v4(const float* v, size_t n, double eps, PassOne& r) {
  pass_one_of_floats<OneVectorOfEight, false>(v, nullptr, n, eps, r);
}
MA_X86_64_V4 void pass_one_levels_v4(const float* v, const uint8_t* w, size_t n, double eps, PassOne& r) {
  pass_one_of_floats<OneVectorOfEight, true>(v, w, n, eps, r);
}
MA_X86_64_V4 void central_moments_doubles_v4(const double* v, size_t n, double mean, CentralMoments& c) {
  central_moments<OneVectorOfEight, false>(v, nullptr, n, mean, c);
}
MA_X86_64_V4 void central_moments_floats_v4(const float* v, size_t n, double mean, CentralMoments& c) {
  central_moments<OneVectorOfEight, false>(v, nullptr, n, mean, c);
}
MA_X86_64_V4 void central_moments_levels_v4(const float* v, const uint8_t* w, size_t n, double mean,
                                            CentralMoments& c) {
  central_moments<OneVectorOfEight, true>(v, w, n, mean, c);
}

MA_VECTOR_CLONES void pass_one_floats(const float* v, size_t n, double eps, PassOne& r) {
  pass_one_of_floats<TwoVectorsOfFour, false>(v, nullptr, n, eps, r);
}
MA_VECTOR_CLONES void pass_one_levels(const float* v, const uint8_t* w, size_t n, double eps, PassOne& r) {
  pass_one_of_floats<TwoVectorsOfFour, true>(v, w, n, eps, r);
}
MA_VECTOR_CLONES void central_moments_doubles(const double* v, size_t n, double mean, CentralMoments& c) {
  central_moments<TwoVectorsOfFour, false>(v, nullptr, n, mean, c);
}
MA_VECTOR_CLONES void central_moments_floats(const float* v, size_t n, double mean, CentralMoments& c) {
  central_moments<TwoVectorsOfFour, false>(v, nullptr, n, mean, c);
}
MA_VECTOR_CLONES void central_moments_levels(const float* v, const uint8_t* w, size_t n, double mean,
                                             CentralMoments& c) {
  central_moments<TwoVectorsOfFour, true>(v, w, n, mean, c);
}

}  // namespace

void add_pass_one(const Piece& p, double eps, PassOne& r) {
  const bool v4 = cpu_runs_x86_64_v4();
  if (p.weighted() && v4)
    pass_one_levels_v4(p.floats, p.counts, p.n, eps, r);
  else if (p.weighted())
    pass_one_levels(p.floats, p.counts, p.n, eps, r);
  else if (p.float_form() && v4)
    pass_one_floats_v4(p.floats, p.n, eps, r);
  else if (p.float_form())
    pass_one_floats(p.floats, p.n, eps, r);
  else
    pass_one_doubles(p.values.data(), p.n, eps, r);
}

void count_key_buckets(const Piece& p, unsigned shift, uint32_t* buckets) {
  if (p.weighted()) {
    for (size_t i = 0; i < p.n; ++i) buckets[p.buckets[i]] += p.counts[i];
  } else if (p.float_form()) {
    for (size_t i = 0; i < p.n; ++i) ++buckets[p.buckets[i]];
  } else {
    for (size_t i = 0; i < p.n; ++i) ++buckets[p.keys[i] >> shift];
  }
}

void add_central_moments(const Piece& p, double mean, CentralMoments& c) {
  const bool v4 = cpu_runs_x86_64_v4();
  if (p.weighted() && v4)
    central_moments_levels_v4(p.floats, p.counts, p.n, mean, c);
  else if (p.weighted())
    central_moments_levels(p.floats, p.counts, p.n, mean, c);
  else if (p.float_form() && v4)
    central_moments_floats_v4(p.floats, p.n, mean, c);
  else if (p.float_form())
    central_moments_floats(p.floats, p.n, mean, c);
  else if (v4)
    central_moments_doubles_v4(p.values.data(), p.n, mean, c);
  else
    central_moments_doubles(p.values.data(), p.n, mean, c);
}

// numpy.histogram's bin of each value (HistogramBinner's rule), four at a time. An edge is recomputed as
// histogram_edges computes it, i * step + first, rather than loaded: the two corrections then need no
// gather. Only edges 0 … bins - 1 are ever compared (the last bin takes its upper edge), and those are all
// computed this way.
using LaneIndex = int32_t __attribute__((vector_size(16)));

namespace {

// bins_of's clones: declared nowhere else (core/vector_clones.h says why).
MA_VECTOR_CLONES void bins_of_values(const double* v, size_t n, const std::vector<double>& edges,
                                     uint32_t* out) {
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

}  // namespace

void bins_of(const double* v, size_t n, const std::vector<double>& edges, uint32_t* out) {
  // A range past DBL_MAX (values near both ends of float64) makes the vector loop's step infinite: the
  // binner's half-scale rule takes every value instead.
  if (!std::isfinite(edges.back() - edges.front())) {
    const HistogramBinner binner(edges);
    for (size_t i = 0; i < n; ++i) out[i] = binner.bin(v[i]);
    return;
  }
  bins_of_values(v, n, edges, out);
}

bool for_each_piece(const FileSource& file, uint64_t offset, uint64_t bytes, DType stored, Scaling scaling,
                    char* buffer, size_t buffer_bytes, const std::atomic<bool>* cancel, PieceBuffers& into,
                    const std::function<void(Piece&)>& f) {
  const DTypeInfo& info = dtype_info(stored);
  const bool blocks = info.block_elements > 1;
  const std::optional<GgmlLevelShape> levels = blocks ? ggml_level_shape(stored) : std::nullopt;
  // Values one block yields: its elements, or its groups' levels.
  const size_t per_block =
      levels ? info.block_elements / levels->group_elements * levels->levels : info.block_elements;
  const size_t chunk = blocks ? buffer_bytes / info.block_bytes * info.block_bytes : buffer_bytes;
  const size_t blocks_per_piece = blocks ? std::max<size_t>(1, kPiece / per_block) : 0;
  // Float32 values are read where they lie in the buffer when it is aligned for floats (the scan's is), else
  // copied out into `decoded`. The copy was 5% of a float32 scan.
  const bool f32 = stored == DType::F32;
  const bool f32_in_place = f32 && reinterpret_cast<uintptr_t>(buffer) % alignof(float) == 0;
  // Grown, never shrunk: the same buffers serve every unit of every tensor a thread scans.
  const size_t values = blocks                                    ? blocks_per_piece * per_block
                        : (f32 && !f32_in_place) || scaling.scale ? kPiece
                                                                  : 0;
  if (into.decoded.size() < values) into.decoded.resize(values);
  if (levels && into.level_counts.size() < values) into.level_counts.resize(values);
  float* decoded = into.decoded.data();
  uint8_t* level_counts = into.level_counts.data();
  Piece& piece = into.piece;
  const unsigned width = blocks ? 4 : dtype_bits(stored) / 8;
  for (uint64_t done = 0; done < bytes;) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return false;
    const size_t len = static_cast<size_t>(std::min<uint64_t>(chunk, bytes - done));
    file.read_exact(offset + done, len, buffer);
    done += len;
    if (!blocks) {
      for (size_t at = 0; at + width <= len; at += kPiece * width) {
        const size_t count = std::min(kPiece, (len - at) / width);
        if (scaling.scale) {
          const uint64_t first = scaling.first_element + (done - len + at) / width;
          for (size_t i = 0; i < count; ++i)
            decoded[i] = static_cast<float>(element_value(stored, static_cast<uint8_t>(buffer[at + i])));
          scaling.scale->apply(first, decoded, count);
          float_piece(decoded, count, piece);
        } else if (f32_in_place) {
          float_piece(reinterpret_cast<const float*>(buffer + at), count, piece);
        } else if (f32) {
          std::memcpy(decoded, buffer + at, count * 4);
          float_piece(decoded, count, piece);
        } else {
          load_piece(stored, buffer + at, count, piece);
        }
        f(piece);
      }
      continue;
    }
    const size_t n = len / info.block_bytes;
    for (size_t b = 0; b < n; b += blocks_per_piece) {
      const size_t nb = std::min(blocks_per_piece, n - b);
      const uint8_t* src = reinterpret_cast<const uint8_t*>(buffer) + b * info.block_bytes;
      if (levels) {
        block_levels(stored, src, nb, decoded, level_counts);
        level_piece(decoded, level_counts, nb * per_block, piece);
      } else {
        dequantize_blocks(stored, src, nb, decoded);
        float_piece(decoded, nb * per_block, piece);
      }
      f(piece);
    }
  }
  return true;
}

}  // namespace ma::wide_stats
