// Shared pieces of the ggml block decoders (ggml_dequant.cpp, ggml_dequant_iq.cpp, ggml_levels.cpp): reading
// the scalars stored in blocks, the 4-bit codebooks, and the loop over blocks. Internal to those decoders:
// include it in no other file, for it also turns off floating-point contraction for the rest of the file that
// includes it.
#pragma once
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

// Bit-exactness with ggml rests on evaluating every product and sum exactly as its C code does, each rounded
// to float32 on its own: a compiler allowed to fuse `a * b + c` into one FMA (GCC does by default for C++
// when the target has FMA, e.g. -march=native) would round once instead of twice and differ in the last bit.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace ma::ggml {

// Blocks have no alignment (a Q4_0 block is 18 bytes), so fields are assembled from bytes: little-endian
// whatever the host, and no misaligned loads for UBSan to flag.
inline uint16_t le16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | p[1] << 8);
}

inline uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

// IEEE half -> float, exactly: every half is a float. Subnormals are mant * 2^-24 (exact in float32); a NaN
// keeps its payload and comes out quiet, as the hardware converters and ggml's own routine leave it.
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f)
    return std::bit_cast<float>(sign | 0x7f800000u | mantissa << 13 | (mantissa ? 0x00400000u : 0u));
  return std::bit_cast<float>(sign | (exponent + 112) << 23 | mantissa << 13);
}

inline float half_at(const uint8_t* p) {
  return half_to_float(le16(p));
}

// MXFP4's E8M0 scale, halved: ggml doubles the E2M1 values (kvalues_mxfp4 holds 2 * e2m1 as int8) and
// halves the scale to match, 2^(e - 128). Exponent bytes 0 and 1 give the subnormals 2^-128 and 2^-127;
// 255, which OCP MX reserves for NaN, gives 2^127 as ggml has it (GGML_E8M0_TO_FP32_HALF).
inline float e8m0_half(uint8_t e) {
  return std::bit_cast<float>(e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23);
}

// The non-linear 4-bit codebooks (ggml-common.h): IQ4_NL/IQ4_XS's levels, and E2M1's eight magnitudes
// doubled to integers, sign in the nibble's top bit (MXFP4, NVFP4).
inline constexpr int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};
inline constexpr int8_t kE2m1Doubled[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// The 6-bit scale and min of sub-block j (0..7) of Q4_K/Q5_K, packed in 12 bytes: sub-blocks 0-3 hold theirs
// in the low 6 bits of bytes j and j + 4; 4-7 in the nibbles of byte j + 4 plus the top 2 bits of bytes j - 4
// (scale) and j (min).
inline void k_scale_min(const uint8_t* s, int j, uint8_t& scale, uint8_t& min) {
  if (j < 4) {
    scale = s[j] & 63;
    min = s[j + 4] & 63;
  } else {
    scale = static_cast<uint8_t>((s[j + 4] & 0xf) | (s[j - 4] >> 6) << 4);
    min = static_cast<uint8_t>((s[j + 4] >> 4) | (s[j] >> 6) << 4);
  }
}

// Group g (0..15, elements 16g..16g+15) of a Q2_K block, 84 bytes: 16 bytes of scales (low nibble: scale,
// high: min), 64 bytes of 2-bit quants, fp16 d, fp16 dmin (converted once per block by the caller: d =
// half_at(b + 80), dmin = half_at(b + 82)). Element 16g + l is bits `shift` of q[l]; its value
// (d * scale) * q - dmin * min.
struct Q2kGroup {
  float dl, ml;
  const uint8_t* q;
  int shift;
};
inline Q2kGroup q2_k_group(const uint8_t* b, float d, float dmin, int g) {
  return {d * static_cast<float>(b[g] & 0xf), dmin * static_cast<float>(b[g] >> 4),
          b + 16 + 32 * (g / 8) + 16 * (g % 2), 2 * (g % 8 / 2)};
}

// Group g of a Q3_K block, 110 bytes: 32 bytes of high bits (hmask), 64 bytes of low 2 bits laid out as
// Q2_K's, 12 bytes of 6-bit scales (+32, one per group), fp16 d (converted once per block by the caller: d =
// half_at(b + 108)). Element 16g + l has its low bits at `shift`
// of q[l] and its high bit under `mask` in hm[l]; a clear high bit subtracts 4. Value dl * (q - 4 * !high).
struct Q3kGroup {
  float dl;
  const uint8_t* q;
  const uint8_t* hm;
  int shift, mask;
};
inline Q3kGroup q3_k_group(const uint8_t* b, float d, int g) {
  const uint8_t* sc = b + 96;
  const int low = g < 8 ? sc[g] & 0xf : sc[g - 8] >> 4;
  const int high = (sc[8 + g % 4] >> (2 * (g / 4))) & 3;
  return {d * static_cast<float>((low | high << 4) - 32), b + 32 + 32 * (g / 8) + 16 * (g % 2),
          b + 16 * (g % 2), 2 * (g % 8 / 2), 1 << (4 * (g / 8) + g % 8 / 2)};
}

// kBit[j] = 1 << j. Testing bit j of a word as `word & kBit[j]` rather than `(word >> j) & 1` lets the
// compiler vectorise the loop over j: SSE2 has no per-lane shift counts, but it has a per-lane AND.
inline constexpr auto kBit = [] {
  std::array<uint32_t, 32> t{};
  for (unsigned j = 0; j < 32; ++j) t[j] = 1u << j;
  return t;
}();

// The loop over blocks, one instantiation per type, so each block decoder inlines into a tight loop. Kept out
// of line: inlined all together into dequantize_blocks' switch, GCC 12 vectorised some of them (Q4_0) three
// times worse.
template <void (*Decode)(const uint8_t* __restrict, float* __restrict), size_t Bytes, size_t Elements>
[[gnu::noinline]] void each_block(const uint8_t* src, size_t blocks, float* dst) {
  for (size_t i = 0; i < blocks; ++i) Decode(src + i * Bytes, dst + i * Elements);
}

}  // namespace ma::ggml
