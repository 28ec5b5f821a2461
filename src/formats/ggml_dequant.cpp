#include "formats/ggml_dequant.h"

#include <array>
#include <bit>
#include <cstring>

#include "formats/ggml_block_fields.h"
#include "formats/ggml_dequant_iq.h"

namespace ma {
namespace {

using ggml::e8m0_half;
using ggml::each_block;
using ggml::half_at;
using ggml::k_scale_min;
using ggml::kBit;
using ggml::kE2m1Doubled;
using ggml::kIq4nlValues;
using ggml::le16;
using ggml::le32;

// NVFP4's UE4M3 sub-block scale, halved for the same reason (ggml_ue4m3_to_fp32): 4 exponent bits (bias 7),
// 3 mantissa bits, bit 7 ignored; 0x00 and 0x7f (E4M3's NaN) read as 0. Every value is exact in float32.
constexpr float ue4m3_half_value(unsigned x) {
  if (x == 0 || x == 0x7f) return 0.0f;
  const int exponent = static_cast<int>((x >> 3) & 0xf);
  const unsigned mantissa = x & 7u;
  // normal: (8 + m) * 2^(e - 7 - 3), subnormal: m * 2^(-6 - 3); then the halving
  float v = static_cast<float>(exponent == 0 ? mantissa : 8 + mantissa);
  for (int k = (exponent == 0 ? 1 : exponent) - 7 - 3 - 1; k < 0; ++k) v *= 0.5f;
  for (int k = (exponent == 0 ? 1 : exponent) - 7 - 3 - 1; k > 0; --k) v *= 2.0f;
  return v;
}

constexpr std::array<float, 256> kUe4m3Half = [] {
  std::array<float, 256> t{};
  for (unsigned x = 0; x < 256; ++x) t[x] = ue4m3_half_value(x);
  return t;
}();

// `n` bytes of nibbles indexing a 16-level codebook, laid out as Q4_0's (element j in the low nibble of byte
// j, element j + n in the high one): y = d * level, 2n elements. x86-64's baseline SIMD has no byte shuffle
// to look levels up 16 at a time, so the 16 products d * level are formed first (vectorised, and the same
// float products ggml forms) and the nibbles pick among them.
inline void nibble_levels(const int8_t (&levels)[16], const uint8_t* __restrict qs, int n, float d,
                          float* __restrict y) {
  float scaled[16];
  for (int k = 0; k < 16; ++k) scaled[k] = d * static_cast<float>(levels[k]);
  for (int j = 0; j < n; ++j) {
    y[j] = scaled[qs[j] & 0xf];
    y[j + n] = scaled[qs[j] >> 4];
  }
}

// Four 2-bit fields per byte, lowest first, each minus 1 (Q2_0).
constexpr auto kCrumbsMinusOne = [] {
  std::array<std::array<int8_t, 4>, 256> t{};
  for (unsigned x = 0; x < 256; ++x)
    for (unsigned i = 0; i < 4; ++i) t[x][i] = static_cast<int8_t>(((x >> (2 * i)) & 3) - 1);
  return t;
}();

// ---------------------------------------------------------------------------------------------------------
// One block each. `b` is the block's bytes, `y` its elements. Each expression below is ggml's, term for term:
// integers are formed as ints and converted to float exactly, and every product and sum rounds in the same
// order (q * d + m, not (q + m / d) * d).

// Q4_0, 18 bytes: fp16 d, 16 bytes of nibbles. Element j is the low nibble of byte j, element j + 16 the high
// one; value (q - 8) * d.
void q4_0(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  const uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((qs[j] & 0xf) - 8) * d;
    y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
  }
}

// Q4_1, 20 bytes: fp16 d, fp16 m, nibbles as Q4_0; value q * d + m.
void q4_1(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b), m = half_at(b + 2);
  const uint8_t* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(qs[j] & 0xf) * d + m;
    y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
  }
}

// Q5_0, 22 bytes: fp16 d, 32 fifth bits (bit j for element j, little-endian), nibbles as Q4_0; (q - 16) * d.
void q5_0(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  const uint32_t qh = le32(b + 2);
  const uint8_t* qs = b + 6;
  for (int j = 0; j < 16; ++j) {
    const int lo = (qs[j] & 0xf) | ((qh & kBit[j]) ? 16 : 0);
    const int hi = (qs[j] >> 4) | ((qh & kBit[j + 16]) ? 16 : 0);
    y[j] = static_cast<float>(lo - 16) * d;
    y[j + 16] = static_cast<float>(hi - 16) * d;
  }
}

// Q5_1, 24 bytes: fp16 d, fp16 m, fifth bits, nibbles; q * d + m.
void q5_1(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b), m = half_at(b + 2);
  const uint32_t qh = le32(b + 4);
  const uint8_t* qs = b + 8;
  for (int j = 0; j < 16; ++j) {
    const int lo = (qs[j] & 0xf) | ((qh & kBit[j]) ? 16 : 0);
    const int hi = (qs[j] >> 4) | ((qh & kBit[j + 16]) ? 16 : 0);
    y[j] = static_cast<float>(lo) * d + m;
    y[j + 16] = static_cast<float>(hi) * d + m;
  }
}

// Q8_0, 34 bytes: fp16 d, 32 int8; q * d.
void q8_0(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

// Q8_1, 36 bytes: fp16 d, fp16 s (d times the sum of the quants, for dot products), 32 int8; q * d. ggml has
// no to_float for it (it only ever holds activations); this is its definition.
void q8_1(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[4 + j])) * d;
}

// Q2_K, 84 bytes, in 16 groups of 16 (ggml::q2_k_group): (d * scale) * q - dmin * min.
void q2_k(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b + 80), dmin = half_at(b + 82);
  for (int g = 0; g < 16; ++g) {
    const ggml::Q2kGroup k = ggml::q2_k_group(b, d, dmin, g);
    for (int l = 0; l < 16; ++l) y[16 * g + l] = k.dl * static_cast<float>((k.q[l] >> k.shift) & 3) - k.ml;
  }
}

// Q3_K, 110 bytes, in 16 groups of 16 (ggml::q3_k_group): (d * (scale - 32)) * (q - 4 * !high).
void q3_k(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b + 108);
  for (int g = 0; g < 16; ++g) {
    const ggml::Q3kGroup k = ggml::q3_k_group(b, d, g);
    for (int l = 0; l < 16; ++l) {
      const int v = ((k.q[l] >> k.shift) & 3) - ((k.hm[l] & k.mask) ? 0 : 4);
      y[16 * g + l] = k.dl * static_cast<float>(v);
    }
  }
}

// Q4_K, 144 bytes: fp16 d, fp16 dmin, 12 bytes of 6-bit scales and mins (k_scale_min), 128 bytes of nibbles:
// 64 elements per 32 bytes, the first 32 in the low nibbles. Value (d * scale) * q - dmin * min.
void q4_k(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const uint8_t* s = b + 4;
  const uint8_t* qs = b + 16;
  for (int c = 0; c < 4; ++c) {
    uint8_t sc, mn;
    k_scale_min(s, 2 * c, sc, mn);
    const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(mn);
    k_scale_min(s, 2 * c + 1, sc, mn);
    const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(mn);
    const uint8_t* q = qs + 32 * c;
    float* out = y + 64 * c;
    for (int l = 0; l < 32; ++l) out[l] = d1 * static_cast<float>(q[l] & 0xf) - m1;
    for (int l = 0; l < 32; ++l) out[32 + l] = d2 * static_cast<float>(q[l] >> 4) - m2;
  }
}

// Q5_K, 176 bytes: Q4_K's header, 32 bytes of fifth bits (element 64c + 32h + l: bit 2c + h of qh[l]), then
// the nibbles as Q4_K.
void q5_k(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const uint8_t* s = b + 4;
  const uint8_t* qh = b + 16;
  const uint8_t* qs = b + 48;
  for (int c = 0; c < 4; ++c) {
    uint8_t sc, mn;
    k_scale_min(s, 2 * c, sc, mn);
    const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(mn);
    k_scale_min(s, 2 * c + 1, sc, mn);
    const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(mn);
    const uint8_t* q = qs + 32 * c;
    float* out = y + 64 * c;
    for (int l = 0; l < 32; ++l)
      out[l] = d1 * static_cast<float>((q[l] & 0xf) | ((qh[l] >> (2 * c)) & 1) << 4) - m1;
    for (int l = 0; l < 32; ++l)
      out[32 + l] = d2 * static_cast<float>((q[l] >> 4) | ((qh[l] >> (2 * c + 1)) & 1) << 4) - m2;
  }
}

// Q6_K, 210 bytes: 128 bytes of low nibbles, 64 bytes of high 2-bit pairs, 16 int8 scales (one per 16
// elements), fp16 d. In each half h of 128 elements, element 128h + 32k + l (k = 0..3) takes the low (k < 2)
// or high nibble of ql[64h + 32 * (k % 2) + l] and bits 2k of qh[32h + l]; value (d * scale) * (q - 32).
void q6_k(const uint8_t* __restrict b, float* __restrict y) {
  const uint8_t* sc = b + 192;
  const float d = half_at(b + 208);
  for (int g = 0; g < 16; ++g) {  // group g: elements 16g..16g+15
    const int h = g / 8, k = g % 8 / 2;
    const uint8_t* ql = b + 64 * h + 32 * (k % 2) + 16 * (g % 2);
    const uint8_t* qh = b + 128 + 32 * h + 16 * (g % 2);
    const int nibble_shift = 4 * (k / 2), high_shift = 2 * k;
    const float dl = d * static_cast<float>(static_cast<int8_t>(sc[g]));
    for (int l = 0; l < 16; ++l) {
      const int q = (((ql[l] >> nibble_shift) & 0xf) | ((qh[l] >> high_shift) & 3) << 4) - 32;
      y[16 * g + l] = dl * static_cast<float>(q);
    }
  }
}

// Q8_K, 292 bytes: float32 d, 256 int8, 16 int16 sums of 16 quants (for dot products); d * q. ggml's
// type traits have no to_float for it, but dequantize_row_q8_K decodes it so.
void q8_k(const uint8_t* __restrict b, float* __restrict y) {
  const float d = std::bit_cast<float>(le32(b));
  for (int j = 0; j < 256; ++j) y[j] = d * static_cast<float>(static_cast<int8_t>(b[4 + j]));
}

// IQ4_NL, 18 bytes: fp16 d, nibbles as Q4_0 indexing the non-linear codebook; d * level.
void iq4_nl(const uint8_t* __restrict b, float* __restrict y) {
  nibble_levels(kIq4nlValues, b + 2, 16, half_at(b), y);
}

// IQ4_XS, 136 bytes: fp16 d, 16 bits of scale high pairs, 4 bytes of scale low nibbles (a 6-bit scale +32 per
// 32 elements), 128 bytes of IQ4_NL-style nibbles, 16 bytes per 32 elements; (d * (scale - 32)) * level.
void iq4_xs(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  const uint16_t scales_h = le16(b + 2);
  const uint8_t* scales_l = b + 4;
  for (int ib = 0; ib < 8; ++ib) {
    const int ls = ((scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf) | ((scales_h >> (2 * ib)) & 3) << 4;
    nibble_levels(kIq4nlValues, b + 8 + 16 * ib, 16, d * static_cast<float>(ls - 32), y + 32 * ib);
  }
}

// One trit of a TQ1_0 byte, minus 1: bytes hold 5 trits (4 in qh) as a base-3 fraction scaled to 256, most
// significant first; multiplying by 3^n (mod 256) brings trit n to the top, where * 3 >> 8 reads it.
inline int8_t trit(uint8_t packed, unsigned pow3) {
  const uint8_t q = static_cast<uint8_t>(packed * pow3);
  return static_cast<int8_t>(((static_cast<uint16_t>(q) * 3) >> 8) - 1);
}

// TQ1_0, 54 bytes: 48 bytes of 5 trits each, 4 bytes of 4 trits each, fp16 d. Elements run trit-major over
// runs of bytes: 32 bytes x 5 trits, then 16 x 5, then the 4 qh bytes x 4; value (t - 1) * d.
void tq1_0(const uint8_t* __restrict b, float* __restrict y) {
  static constexpr unsigned kPow3[5] = {1, 3, 9, 27, 81};
  const uint8_t* qs = b;
  const uint8_t* qh = b + 48;
  int8_t t[256];
  for (int n = 0; n < 5; ++n)
    for (int m = 0; m < 32; ++m) t[32 * n + m] = trit(qs[m], kPow3[n]);
  for (int n = 0; n < 5; ++n)
    for (int m = 0; m < 16; ++m) t[160 + 16 * n + m] = trit(qs[32 + m], kPow3[n]);
  for (int n = 0; n < 4; ++n)
    for (int m = 0; m < 4; ++m) t[240 + 4 * n + m] = trit(qh[m], kPow3[n]);
  const float d = half_at(b + 52);
  for (int j = 0; j < 256; ++j) y[j] = static_cast<float>(t[j]) * d;
}

// TQ2_0, 66 bytes: 64 bytes of 2-bit values (element 128h + 32l + m: bits 2l of byte 32h + m), fp16 d;
// (q - 1) * d.
void tq2_0(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b + 64);
  for (int h = 0; h < 2; ++h)
    for (int l = 0; l < 4; ++l)
      for (int m = 0; m < 32; ++m)
        y[128 * h + 32 * l + m] = static_cast<float>(((b[32 * h + m] >> (2 * l)) & 3) - 1) * d;
}

// MXFP4, 17 bytes: E8M0 exponent, 16 bytes of E2M1 nibbles laid out as Q4_0's; doubled level * half scale.
void mxfp4(const uint8_t* __restrict b, float* __restrict y) {
  nibble_levels(kE2m1Doubled, b + 1, 16, e8m0_half(b[0]), y);
}

// NVFP4, 36 bytes: 4 UE4M3 scales (one per 16 elements), 32 bytes of E2M1 nibbles, 8 per sub-block laid out
// as Q4_0's within it.
void nvfp4(const uint8_t* __restrict b, float* __restrict y) {
  for (int s = 0; s < 4; ++s) nibble_levels(kE2m1Doubled, b + 4 + 8 * s, 8, kUe4m3Half[b[s]], y + 16 * s);
}

// Q1_0, 18 bytes: fp16 d, 128 sign bits (element j: bit j % 32 of little-endian word j / 32); +d or -d. -d
// is d with its sign bit flipped, so the choice is made on the bits.
void q1_0(const uint8_t* __restrict b, float* __restrict y) {
  const uint32_t d = std::bit_cast<uint32_t>(half_at(b));
  uint32_t out[128];
  for (int w = 0; w < 4; ++w) {
    const uint32_t bits = le32(b + 2 + 4 * w);
    for (int j = 0; j < 32; ++j) out[32 * w + j] = (bits & kBit[j]) ? d : d ^ 0x80000000u;
  }
  std::memcpy(y, out, sizeof out);
}

// Q2_0, 18 bytes: fp16 d, 64 2-bit values (element j: bits 2 * (j % 4) of byte j / 4); (q - 1) * d.
void q2_0(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  int8_t q[64];
  for (int k = 0; k < 16; ++k) std::memcpy(q + 4 * k, kCrumbsMinusOne[b[2 + k]].data(), 4);
  for (int j = 0; j < 64; ++j) y[j] = static_cast<float>(q[j]) * d;
}

}  // namespace

bool can_dequantize(DType t) {
  switch (t) {
    case DType::Q4_0:
    case DType::Q4_1:
    case DType::Q5_0:
    case DType::Q5_1:
    case DType::Q8_0:
    case DType::Q8_1:
    case DType::Q2_K:
    case DType::Q3_K:
    case DType::Q4_K:
    case DType::Q5_K:
    case DType::Q6_K:
    case DType::Q8_K:
    case DType::IQ4_NL:
    case DType::IQ4_XS:
    case DType::TQ1_0:
    case DType::TQ2_0:
    case DType::MXFP4:
    case DType::NVFP4:
    case DType::Q1_0:
    case DType::Q2_0:
    case DType::IQ2_XXS:
    case DType::IQ2_XS:
    case DType::IQ2_S:
    case DType::IQ3_XXS:
    case DType::IQ3_S:
    case DType::IQ1_S:
    case DType::IQ1_M:
      return true;
    default:
      return false;
  }
}

void dequantize_blocks(DType t, const uint8_t* src, size_t blocks, float* dst) {
  switch (t) {
    case DType::Q4_0:
      return each_block<q4_0, 18, 32>(src, blocks, dst);
    case DType::Q4_1:
      return each_block<q4_1, 20, 32>(src, blocks, dst);
    case DType::Q5_0:
      return each_block<q5_0, 22, 32>(src, blocks, dst);
    case DType::Q5_1:
      return each_block<q5_1, 24, 32>(src, blocks, dst);
    case DType::Q8_0:
      return each_block<q8_0, 34, 32>(src, blocks, dst);
    case DType::Q8_1:
      return each_block<q8_1, 36, 32>(src, blocks, dst);
    case DType::Q2_K:
      return each_block<q2_k, 84, 256>(src, blocks, dst);
    case DType::Q3_K:
      return each_block<q3_k, 110, 256>(src, blocks, dst);
    case DType::Q4_K:
      return each_block<q4_k, 144, 256>(src, blocks, dst);
    case DType::Q5_K:
      return each_block<q5_k, 176, 256>(src, blocks, dst);
    case DType::Q6_K:
      return each_block<q6_k, 210, 256>(src, blocks, dst);
    case DType::Q8_K:
      return each_block<q8_k, 292, 256>(src, blocks, dst);
    case DType::IQ4_NL:
      return each_block<iq4_nl, 18, 32>(src, blocks, dst);
    case DType::IQ4_XS:
      return each_block<iq4_xs, 136, 256>(src, blocks, dst);
    case DType::TQ1_0:
      return each_block<tq1_0, 54, 256>(src, blocks, dst);
    case DType::TQ2_0:
      return each_block<tq2_0, 66, 256>(src, blocks, dst);
    case DType::MXFP4:
      return each_block<mxfp4, 17, 32>(src, blocks, dst);
    case DType::NVFP4:
      return each_block<nvfp4, 36, 64>(src, blocks, dst);
    case DType::Q1_0:
      return each_block<q1_0, 18, 128>(src, blocks, dst);
    case DType::Q2_0:
      return each_block<q2_0, 18, 64>(src, blocks, dst);
    case DType::IQ2_XXS:
    case DType::IQ2_XS:
    case DType::IQ2_S:
    case DType::IQ3_XXS:
    case DType::IQ3_S:
    case DType::IQ1_S:
    case DType::IQ1_M:
      return dequantize_grid_blocks(t, src, blocks, dst);  // ggml_dequant_iq.cpp
    default:
      return;  // precondition: can_dequantize(t)
  }
}

}  // namespace ma
