#include "formats/ggml_levels.h"

#include <array>
#include <cstring>

#include "formats/ggml_block_fields.h"

namespace ma {
namespace {

using ggml::e8m0_half;
using ggml::half_at;
using ggml::k_scale_min;
using ggml::kE2m1Doubled;
using ggml::kIq4nlValues;

// How many of `n` (even) bytes' low and high nibbles hold each code, into `low` and `high` (they may be the
// same table when both nibbles belong to one group). Each code adds its one-hot row of 16 byte counters, in
// registers: increments in memory would wait on each other through a run of equal codes.
using Counts16 = uint8_t __attribute__((vector_size(16)));
constexpr auto kOneHot = [] {
  std::array<std::array<uint8_t, 16>, 16> t{};
  for (size_t k = 0; k < 16; ++k) t[k][k] = 1;
  return t;
}();

inline Counts16 one_hot(unsigned code) {
  Counts16 v;
  std::memcpy(&v, kOneHot[code].data(), sizeof v);
  return v;
}

inline void count_nibbles(const uint8_t* __restrict q, int n, uint8_t* low, uint8_t* high) {
  Counts16 lo0 = {}, lo1 = {}, hi0 = {}, hi1 = {};
  for (int j = 0; j < n; j += 2) {
    lo0 += one_hot(q[j] & 0xf);
    hi0 += one_hot(q[j] >> 4);
    lo1 += one_hot(q[j + 1] & 0xf);
    hi1 += one_hot(q[j + 1] >> 4);
  }
  const Counts16 lo = lo0 + lo1, hi = hi0 + hi1;
  if (low == high) {
    const Counts16 both = lo + hi;
    std::memcpy(low, &both, 16);
    return;
  }
  std::memcpy(low, &lo, 16);
  std::memcpy(high, &hi, 16);
}

// Each expression below is its decoder's in ggml_dequant.cpp, term for term, so that a level is bit for bit
// the float that code decodes to.

// A 16-level codebook times d (IQ4_NL, IQ4_XS, MXFP4): d * level.
inline void codebook_levels(const int8_t (&book)[16], float d, float* y) {
  for (int k = 0; k < 16; ++k) y[k] = d * static_cast<float>(book[k]);
}

// Q4_0: (q - 8) * d; one group of 32, nibbles as Q4_0's.
void q4_0(const uint8_t* __restrict b, float* __restrict y, uint8_t* __restrict c) {
  const float d = half_at(b);
  for (int q = 0; q < 16; ++q) y[q] = static_cast<float>(q - 8) * d;
  count_nibbles(b + 2, 16, c, c);
}

// Q4_1: q * d + m.
void q4_1(const uint8_t* __restrict b, float* __restrict y, uint8_t* __restrict c) {
  const float d = half_at(b), m = half_at(b + 2);
  for (int q = 0; q < 16; ++q) y[q] = static_cast<float>(q) * d + m;
  count_nibbles(b + 4, 16, c, c);
}

void iq4_nl(const uint8_t* __restrict b, float* __restrict y, uint8_t* __restrict c) {
  codebook_levels(kIq4nlValues, half_at(b), y);
  count_nibbles(b + 2, 16, c, c);
}

void mxfp4(const uint8_t* __restrict b, float* __restrict y, uint8_t* __restrict c) {
  codebook_levels(kE2m1Doubled, e8m0_half(b[0]), y);
  count_nibbles(b + 1, 16, c, c);
}

// IQ4_XS: 8 groups of 32, each (d * (scale - 32)) * level.
void iq4_xs(const uint8_t* __restrict b, float* __restrict y, uint8_t* __restrict c) {
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
void q4_k(const uint8_t* __restrict b, float* __restrict y, uint8_t* __restrict c) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const uint8_t* s = b + 4;
  for (int g = 0; g < 8; ++g) {
    uint8_t sc, mn;
    k_scale_min(s, g, sc, mn);
    const float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(mn);
    for (int q = 0; q < 16; ++q) y[16 * g + q] = dl * static_cast<float>(q) - ml;
  }
  for (int k = 0; k < 4; ++k) count_nibbles(b + 16 + 32 * k, 32, c + 32 * k, c + 32 * k + 16);
}

// Q2_K: 16 groups of 16 (ggml::q2_k_group), four levels (d * scale) * q - dmin * min.
void q2_k(const uint8_t* __restrict b, float* __restrict y, uint8_t* __restrict c) {
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
void q3_k(const uint8_t* __restrict b, float* __restrict y, uint8_t* __restrict c) {
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

// The loop over blocks, one instantiation per type (as ggml::each_block).
template <void (*Levels)(const uint8_t* __restrict, float* __restrict, uint8_t* __restrict), size_t Bytes,
          size_t Entries>
[[gnu::noinline]] void each_block(const uint8_t* src, size_t blocks, float* levels, uint8_t* counts) {
  for (size_t i = 0; i < blocks; ++i) Levels(src + i * Bytes, levels + i * Entries, counts + i * Entries);
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

}  // namespace ma
