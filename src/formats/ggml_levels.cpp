#include "formats/ggml_levels.h"

#include <array>
#include <cstring>

#include "core/vector_clones.h"
#include "formats/ggml_block_fields.h"

namespace ma {
namespace {

using ggml::e8m0_half;
using ggml::half_at;
using ggml::k_scale_min;
using ggml::kE2m1Doubled;
using ggml::kIq4nlValues;

// How many of `n` (a multiple of 4) bytes' low and high nibbles hold each code, into `low` and `high` (they
// may be the same table when both nibbles belong to one group). A byte indexes a row of 32 byte counters
// with a one in its low nibble's lane (0-15) and in 16 + its high nibble's: one load and one add count both
// nibbles, with no nibble taken apart (an AVX2 clone adds 32 lanes at once; the baseline adds two halves).
// The counts stay in registers, four sums apart: increments in memory would wait on each other through a
// run of equal codes.
using Counts32 = uint8_t __attribute__((vector_size(32)));
alignas(32) constexpr auto kNibblePairOneHot = [] {
  std::array<std::array<uint8_t, 32>, 256> t{};
  for (size_t b = 0; b < 256; ++b) {
    t[b][b & 15] = 1;
    t[b][16 + (b >> 4)] = 1;
  }
  return t;
}();

// Adds `byte`'s row to `c` (by reference: a 32-byte vector by value changes the ABI without AVX).
[[gnu::always_inline]] inline void add_pair_one_hot(Counts32& c, uint8_t byte) {
  Counts32 v;
  std::memcpy(&v, kNibblePairOneHot[byte].data(), sizeof v);
  c += v;
}

[[gnu::always_inline]] inline void count_nibbles(const uint8_t* __restrict q, int n, uint8_t* low,
                                                 uint8_t* high) {
  Counts32 c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (int j = 0; j < n; j += 4) {
    add_pair_one_hot(c0, q[j]);
    add_pair_one_hot(c1, q[j + 1]);
    add_pair_one_hot(c2, q[j + 2]);
    add_pair_one_hot(c3, q[j + 3]);
  }
  const Counts32 c = (c0 + c1) + (c2 + c3);
  uint8_t both[32];
  std::memcpy(both, &c, sizeof both);
  if (low == high) {
    for (int k = 0; k < 16; ++k) low[k] = static_cast<uint8_t>(both[k] + both[16 + k]);
    return;
  }
  std::memcpy(low, both, 16);
  std::memcpy(high, both + 16, 16);
}

// Each expression below is its decoder's in ggml_dequant.cpp, term for term, so that a level is bit for bit
// the float that code decodes to.

// The 16 codes as floats, eight lanes at a time: `code * d` written with a converted loop counter compiled to
// a scalar conversion and multiply per code, then shuffles.
using Floats8 = float __attribute__((vector_size(32)));
constexpr Floats8 kCodesLow = {0, 1, 2, 3, 4, 5, 6, 7}, kCodesHigh = {8, 9, 10, 11, 12, 13, 14, 15};

// y[q] = a * q - b for the 16 codes q (Q4_K; Q4_0 and Q4_1 with their own terms below).
[[gnu::always_inline]] inline void affine_levels(float a, float b, float* y) {
  const Floats8 low = a * kCodesLow - b, high = a * kCodesHigh - b;
  std::memcpy(y, &low, sizeof low);
  std::memcpy(y + 8, &high, sizeof high);
}

// A 16-level codebook times d (IQ4_NL, IQ4_XS, MXFP4): d * level.
inline void codebook_levels(const int8_t (&book)[16], float d, float* y) {
  for (int k = 0; k < 16; ++k) y[k] = d * static_cast<float>(book[k]);
}

// Q4_0: (q - 8) * d; one group of 32, nibbles as Q4_0's.
[[gnu::always_inline]] inline void q4_0(const uint8_t* __restrict b, float* __restrict y,
                                        uint8_t* __restrict c) {
  const float d = half_at(b);
  const Floats8 low = (kCodesLow - 8) * d, high = (kCodesHigh - 8) * d;
  std::memcpy(y, &low, sizeof low);
  std::memcpy(y + 8, &high, sizeof high);
  count_nibbles(b + 2, 16, c, c);
}

// Q4_1: q * d + m.
[[gnu::always_inline]] inline void q4_1(const uint8_t* __restrict b, float* __restrict y,
                                        uint8_t* __restrict c) {
  const float d = half_at(b), m = half_at(b + 2);
  const Floats8 low = kCodesLow * d + m, high = kCodesHigh * d + m;
  std::memcpy(y, &low, sizeof low);
  std::memcpy(y + 8, &high, sizeof high);
  count_nibbles(b + 4, 16, c, c);
}

[[gnu::always_inline]] inline void iq4_nl(const uint8_t* __restrict b, float* __restrict y,
                                          uint8_t* __restrict c) {
  codebook_levels(kIq4nlValues, half_at(b), y);
  count_nibbles(b + 2, 16, c, c);
}

[[gnu::always_inline]] inline void mxfp4(const uint8_t* __restrict b, float* __restrict y,
                                         uint8_t* __restrict c) {
  codebook_levels(kE2m1Doubled, e8m0_half(b[0]), y);
  count_nibbles(b + 1, 16, c, c);
}

// IQ4_XS: 8 groups of 32, each (d * (scale - 32)) * level.
[[gnu::always_inline]] inline void iq4_xs(const uint8_t* __restrict b, float* __restrict y,
                                          uint8_t* __restrict c) {
  const float d = half_at(b);
  const uint16_t scales_h = ggml::le16(b + 2);
  const uint8_t* scales_l = b + 4;
  for (int ib = 0; ib < 8; ++ib) {
    const int ls = ((scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf) | ((scales_h >> (2 * ib)) & 3) << 4;
    codebook_levels(kIq4nlValues, d * static_cast<float>(ls - 32), y + 16 * ib);
    count_nibbles(b + 8 + 16 * ib, 16, c + 16 * ib, c + 16 * ib);
  }
}

// Q4_K: 8 groups of 32, (d * scale) * q - dmin * min; group 2c in the low nibbles of 32 bytes, 2c + 1 in
// their high ones.
[[gnu::always_inline]] inline void q4_k(const uint8_t* __restrict b, float* __restrict y,
                                        uint8_t* __restrict c) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const uint8_t* s = b + 4;
  for (int g = 0; g < 8; ++g) {
    uint8_t sc, mn;
    k_scale_min(s, g, sc, mn);
    const float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(mn);
    affine_levels(dl, ml, y + 16 * g);
  }
  for (int k = 0; k < 4; ++k) count_nibbles(b + 16 + 32 * k, 32, c + 32 * k, c + 32 * k + 16);
}

// Q2_K: 16 groups of 16 (ggml::q2_k_group), four levels (d * scale) * q - dmin * min.
[[gnu::always_inline]] inline void q2_k(const uint8_t* __restrict b, float* __restrict y,
                                        uint8_t* __restrict c) {
  const float d = half_at(b + 80), dmin = half_at(b + 82);
  for (int g = 0; g < 16; ++g) {
    const ggml::Q2kGroup k = ggml::q2_k_group(b, d, dmin, g);
    for (int q = 0; q < 4; ++q) y[4 * g + q] = k.dl * static_cast<float>(q) - k.ml;
    uint8_t* n = c + 4 * g;
    std::memset(n, 0, 4);
    for (int l = 0; l < 16; ++l) ++n[(k.q[l] >> k.shift) & 3];
  }
}

// Q3_K: 16 groups of 16 (ggml::q3_k_group); code (low | high << 2), eight levels dl * (low - 4 * !high).
[[gnu::always_inline]] inline void q3_k(const uint8_t* __restrict b, float* __restrict y,
                                        uint8_t* __restrict c) {
  const float d = half_at(b + 108);
  for (int g = 0; g < 16; ++g) {
    const ggml::Q3kGroup k = ggml::q3_k_group(b, d, g);
    for (int code = 0; code < 8; ++code)
      y[8 * g + code] = k.dl * static_cast<float>((code & 3) - (code & 4 ? 0 : 4));
    uint8_t* n = c + 8 * g;
    std::memset(n, 0, 8);
    for (int l = 0; l < 16; ++l) ++n[((k.q[l] >> k.shift) & 3) | (k.hm[l] & k.mask ? 4 : 0)];
  }
}

// The loop over blocks, one instantiation per type (as ggml::each_block), each inlined into
// levels_of_blocks, whose clones (core/vector_clones.h) then hold every type's loop: Clang clones no function
// templates.
template <void (*Levels)(const uint8_t* __restrict, float* __restrict, uint8_t* __restrict), size_t Bytes,
          size_t Entries>
[[gnu::always_inline]] inline void each_block(const uint8_t* src, size_t blocks, float* levels,
                                              uint8_t* counts) {
  for (size_t i = 0; i < blocks; ++i) Levels(src + i * Bytes, levels + i * Entries, counts + i * Entries);
}

// block_levels's clones: declared nowhere else (core/vector_clones.h says why).
MA_VECTOR_CLONES void levels_of_blocks(DType t, const uint8_t* src, size_t blocks, float* levels,
                                       uint8_t* counts) {
  switch (t) {
    case DType::Q4_0:
      return each_block<q4_0, 18, 16>(src, blocks, levels, counts);
    case DType::Q4_1:
      return each_block<q4_1, 20, 16>(src, blocks, levels, counts);
    case DType::IQ4_NL:
      return each_block<iq4_nl, 18, 16>(src, blocks, levels, counts);
    case DType::MXFP4:
      return each_block<mxfp4, 17, 16>(src, blocks, levels, counts);
    case DType::IQ4_XS:
      return each_block<iq4_xs, 136, 128>(src, blocks, levels, counts);
    case DType::Q4_K:
      return each_block<q4_k, 144, 128>(src, blocks, levels, counts);
    case DType::Q2_K:
      return each_block<q2_k, 84, 64>(src, blocks, levels, counts);
    case DType::Q3_K:
      return each_block<q3_k, 110, 128>(src, blocks, levels, counts);
    default:
      return;
  }
}

}  // namespace

std::optional<GgmlLevelShape> ggml_level_shape(DType t) {
  switch (t) {
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::IQ4_NL:
    case DType::IQ4_XS:
    case DType::MXFP4:
    case DType::Q4_K:
      return GgmlLevelShape{32, 16};
    case DType::Q2_K:
      return GgmlLevelShape{16, 4};
    case DType::Q3_K:
      return GgmlLevelShape{16, 8};
    default:
      return std::nullopt;
  }
}

void block_levels(DType t, const uint8_t* src, size_t blocks, float* levels, uint8_t* counts) {
  levels_of_blocks(t, src, blocks, levels, counts);
}

}  // namespace ma
