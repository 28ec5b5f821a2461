#include "formats/ggml_dequant_iq.h"

#include <array>
#include <bit>

#include "formats/ggml_block_fields.h"
#include "formats/ggml_iq_grids.h"

namespace ma {
namespace {

using ggml::each_block;
using ggml::half_at;
using ggml::half_to_float;
using ggml::le16;
using ggml::le32;

// IQ1's shift: every element is dl * (grid value + delta), delta = +1/8 or, when a bit says so, -1/8. Picked
// from this pair rather than by a branch, which random-looking bits would mispredict half the time.
constexpr float kIq1Delta[2] = {0.125f, -0.125f};

// The 8 sign bits of 8 elements stored as 7 (IQ2_XXS, IQ2_XS, IQ3_XXS): the eighth makes the number of
// negated elements even. ggml looks this up in a table (ksigns_iq2xs) whose entry s is exactly this.
inline uint8_t even_signs(unsigned seven) {
  return static_cast<uint8_t>(seven | (std::popcount(seven) & 1u) << 7);
}

// kSignBits[s][j]: float32's sign bit where bit j of s is set, else 0. ggml writes `x * (negative ? -1 : 1)`,
// which compilers, its library's included, turn into a negation: the same float but for a NaN's sign, which
// the product would keep. Flipping the bit by table keeps that, and keeps the choice free of branches (random
// sign bits would mispredict half of them) and the loop over j vectorisable.
constexpr auto kSignBits = [] {
  std::array<std::array<uint32_t, 8>, 256> t{};
  for (unsigned s = 0; s < 256; ++s)
    for (unsigned j = 0; j < 8; ++j) t[s][j] = ((s >> j) & 1u) << 31;
  return t;
}();

// Eight elements from a grid entry of eight magnitudes: dl * magnitude, negated by the sign bits.
inline void signed_octet(uint64_t entry, unsigned signs, float dl, float* __restrict y) {
  const uint32_t* sign = kSignBits[signs].data();
  for (int j = 0; j < 8; ++j) {
    const float v = dl * static_cast<float>((entry >> (8 * j)) & 0xff);
    y[j] = std::bit_cast<float>(std::bit_cast<uint32_t>(v) ^ sign[j]);
  }
}

// Eight IQ3 elements: two grid entries of four magnitudes each, the first for elements 0-3.
inline uint64_t two_quads(uint32_t first, uint32_t second) {
  return first | static_cast<uint64_t>(second) << 32;
}

// Eight IQ1 elements from an entry of eight int8 values in {-1, 0, 1}: dl * (value + delta).
inline void shifted_octet(uint64_t entry, float dl, float delta, float* __restrict y) {
  for (int j = 0; j < 8; ++j) y[j] = dl * (static_cast<float>(static_cast<int8_t>(entry >> (8 * j))) + delta);
}

// ---------------------------------------------------------------------------------------------------------
// One block each, 256 elements in 8 runs of 32. `b` is the block's bytes, `y` its elements. As in
// ggml_dequant.cpp, every expression is ggml's term for term: a run's scale d * (...) is formed first, then
// multiplied by each magnitude, then signed.

// IQ2_XXS, 66 bytes: fp16 d, then 8 bytes per run: four indices into kIq2xxsGrid (8 elements each) and a
// little-endian uint32 of four 7-bit sign fields (bits 7l) and a 4-bit scale (bits 28-31). Value
// (d * (0.5 + scale) * 0.25) * magnitude * sign.
void iq2_xxs(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  for (int ib = 0; ib < 8; ++ib) {
    const uint8_t* q = b + 2 + 8 * ib;
    const uint32_t aux = le32(q + 4);
    const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.25f;
    for (int l = 0; l < 4; ++l)
      signed_octet(kIq2xxsGrid[q[l]], even_signs((aux >> (7 * l)) & 127), db, y + 32 * ib + 8 * l);
  }
}

// IQ2_XS, 74 bytes: fp16 d, 32 little-endian uint16 (a 9-bit index into kIq2xsGrid, a 7-bit sign field),
// 8 bytes of scales: one per run, its low nibble for the first 16 elements, its high one for the rest.
void iq2_xs(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  for (int ib = 0; ib < 8; ++ib) {
    const uint8_t sc = b[66 + ib];
    const float db[2] = {d * (0.5f + static_cast<float>(sc & 0xf)) * 0.25f,
                         d * (0.5f + static_cast<float>(sc >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l) {
      const uint16_t q = le16(b + 2 + 8 * ib + 2 * l);
      signed_octet(kIq2xsGrid[q & 511], even_signs(q >> 9), db[l / 2], y + 32 * ib + 8 * l);
    }
  }
}

// IQ2_S, 82 bytes: fp16 d, 32 low index bytes, 32 sign bytes (all 8 bits stored), 8 bytes of high index
// bits (octet 4 * ib + l: bits 2l of byte ib), 8 scale bytes as IQ2_XS's; indices into kIq2sGrid.
void iq2_s(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  const uint8_t* qs = b + 2;
  const uint8_t* signs = b + 34;
  const uint8_t* qh = b + 66;
  for (int ib = 0; ib < 8; ++ib) {
    const uint8_t sc = b[74 + ib];
    const float db[2] = {d * (0.5f + static_cast<float>(sc & 0xf)) * 0.25f,
                         d * (0.5f + static_cast<float>(sc >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l) {
      const int index = qs[4 * ib + l] | ((qh[ib] >> (2 * l)) & 3) << 8;
      signed_octet(kIq2sGrid[index], signs[4 * ib + l], db[l / 2], y + 32 * ib + 8 * l);
    }
  }
}

// IQ3_XXS, 98 bytes: fp16 d, 64 indices into kIq3xxsGrid (4 elements each), then a little-endian uint32 per
// run laid out as IQ2_XXS's (four 7-bit sign fields, a 4-bit scale). Value
// (d * (0.5 + scale) * 0.5) * magnitude * sign.
void iq3_xxs(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  for (int ib = 0; ib < 8; ++ib) {
    const uint8_t* q = b + 2 + 8 * ib;
    const uint32_t aux = le32(b + 66 + 4 * ib);
    const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.5f;
    for (int l = 0; l < 4; ++l)
      signed_octet(two_quads(kIq3xxsGrid[q[2 * l]], kIq3xxsGrid[q[2 * l + 1]]),
                   even_signs((aux >> (7 * l)) & 127), db, y + 32 * ib + 8 * l);
  }
}

// IQ3_S, 110 bytes: fp16 d, 64 low index bytes, 8 bytes of ninth bits (index 8 * ib + k: bit k of byte ib),
// 32 sign bytes, 4 bytes of scales (run ib: nibble ib % 2 of byte ib / 2); indices into kIq3sGrid. Value
// (d * (1 + 2 * scale)) * magnitude * sign.
void iq3_s(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  const uint8_t* qh = b + 66;
  const uint8_t* signs = b + 74;
  for (int ib = 0; ib < 8; ++ib) {
    const uint8_t* q = b + 2 + 8 * ib;
    const float db = d * static_cast<float>(1 + 2 * ((b[106 + ib / 2] >> (4 * (ib % 2))) & 0xf));
    for (int l = 0; l < 4; ++l) {
      const int first = q[2 * l] | ((qh[ib] >> (2 * l)) & 1) << 8;
      const int second = q[2 * l + 1] | ((qh[ib] >> (2 * l + 1)) & 1) << 8;
      signed_octet(two_quads(kIq3sGrid[first], kIq3sGrid[second]), signs[4 * ib + l], db,
                   y + 32 * ib + 8 * l);
    }
  }
}

// IQ1_S, 50 bytes: fp16 d, 32 low index bytes, a little-endian uint16 per run: bits 3l..3l+2 the high index
// bits of octet l, 12-14 a scale, 15 the sign of delta; indices into kIq1sGrid. Value
// (d * (2 * scale + 1)) * (value + delta).
void iq1_s(const uint8_t* __restrict b, float* __restrict y) {
  const float d = half_at(b);
  const uint8_t* qs = b + 2;
  for (int ib = 0; ib < 8; ++ib) {
    const uint16_t qh = le16(b + 34 + 2 * ib);
    const float dl = d * static_cast<float>(2 * ((qh >> 12) & 7) + 1);
    const float delta = kIq1Delta[qh >> 15];
    for (int l = 0; l < 4; ++l)
      shifted_octet(kIq1sGrid[qs[4 * ib + l] | ((qh >> (3 * l)) & 7) << 8], dl, delta, y + 32 * ib + 8 * l);
  }
}

// IQ1_M, 56 bytes: 32 low index bytes, 16 bytes with a nibble per octet (3 high index bits, then the sign of
// its delta), 4 little-endian uint16 of 3-bit scales (run ib, half h: bits 6 * (ib % 2) + 3h of word ib / 2)
// whose top nibbles together are the fp16 d. Indices into kIq1sGrid; values as IQ1_S's.
void iq1_m(const uint8_t* __restrict b, float* __restrict y) {
  const uint8_t* qs = b;
  const uint8_t* qh = b + 32;
  uint16_t sc[4];
  for (int k = 0; k < 4; ++k) sc[k] = le16(b + 48 + 2 * k);
  const float d = half_to_float(
      static_cast<uint16_t>(sc[0] >> 12 | (sc[1] >> 8 & 0xf0) | (sc[2] >> 4 & 0xf00) | (sc[3] & 0xf000)));
  for (int ib = 0; ib < 8; ++ib) {
    const int shift = 6 * (ib % 2);
    const float dl[2] = {d * static_cast<float>(2 * ((sc[ib / 2] >> shift) & 7) + 1),
                         d * static_cast<float>(2 * ((sc[ib / 2] >> (shift + 3)) & 7) + 1)};
    for (int l = 0; l < 4; ++l) {
      const unsigned nibble = (qh[2 * ib + l / 2] >> (4 * (l % 2))) & 0xf;
      const float delta = kIq1Delta[nibble >> 3];
      shifted_octet(kIq1sGrid[qs[4 * ib + l] | (nibble & 7) << 8], dl[l / 2], delta, y + 32 * ib + 8 * l);
    }
  }
}

}  // namespace

void dequantize_grid_blocks(DType t, const uint8_t* src, size_t blocks, float* dst) {
  switch (t) {
    case DType::IQ2_XXS:
      return each_block<iq2_xxs, 66, 256>(src, blocks, dst);
    case DType::IQ2_XS:
      return each_block<iq2_xs, 74, 256>(src, blocks, dst);
    case DType::IQ2_S:
      return each_block<iq2_s, 82, 256>(src, blocks, dst);
    case DType::IQ3_XXS:
      return each_block<iq3_xxs, 98, 256>(src, blocks, dst);
    case DType::IQ3_S:
      return each_block<iq3_s, 110, 256>(src, blocks, dst);
    case DType::IQ1_S:
      return each_block<iq1_s, 50, 256>(src, blocks, dst);
    case DType::IQ1_M:
      return each_block<iq1_m, 56, 256>(src, blocks, dst);
    default:
      return;
  }
}

}  // namespace ma
