// Shared pieces of the ggml block decoders (ggml_dequant.cpp, ggml_dequant_iq.cpp): reading the scalars
// stored in blocks, and the loop over blocks. Internal to those decoders: include it in no other file, for it
// also turns off floating-point contraction for the rest of the file that includes it.
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
