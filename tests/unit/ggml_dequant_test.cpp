// Dequantization of ggml block types (formats/ggml_dequant.h): hand-made blocks whose values follow from the
// format definitions alone, then every decoded type against llama.cpp's own library, bit for bit: the oracle
// script tests/oracle/ggml_to_float.py has libggml-base.so (the pinned node-llama-cpp build under
// tests/peer) quantize weight-like floats and decode them and random blocks with its own to_float, and the
// same blocks must decode to the same float bits here. Without /usr/bin/python3 (with numpy) or the library,
// those tests skip and say why.
#include "formats/ggml_dequant.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "formats/ggml_iq_grids.h"
#include "llama_oracle_reports.h"
#include "script_output_cache.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

std::vector<float> decode(DType t, const std::vector<uint8_t>& blocks) {
  const DTypeInfo& info = dtype_info(t);
  EXPECT_EQ(blocks.size() % info.block_bytes, 0u) << info.name;
  const size_t n = blocks.size() / info.block_bytes;
  std::vector<float> out(n * info.block_elements, -12345.0f);
  dequantize_blocks(t, blocks.data(), n, out.data());
  return out;
}

void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
  b[at] = static_cast<uint8_t>(v & 0xff);
  b[at + 1] = static_cast<uint8_t>(v >> 8);
}

// IEEE half bit patterns used below.
constexpr uint16_t kHalfOne = 0x3c00, kHalfHalf = 0x3800, kHalfTwo = 0x4000, kHalfQuarter = 0x3400;

// ------------------------------------------------------------------------------------------------------
// Hand-made blocks.

TEST(GgmlDequant, Q8_0ScalesSignedQuants) {
  std::vector<uint8_t> b(34);
  put16(b, 0, kHalfHalf);  // d = 0.5
  for (int j = 0; j < 32; ++j) b[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(j - 16));
  b[2] = static_cast<uint8_t>(int8_t{-3});
  b[3] = static_cast<uint8_t>(int8_t{-128});
  b[4] = 127;
  const std::vector<float> y = decode(DType::Q8_0, b);
  EXPECT_EQ(y[0], -1.5f);
  EXPECT_EQ(y[1], -64.0f);
  EXPECT_EQ(y[2], 63.5f);
  for (int j = 3; j < 32; ++j) EXPECT_EQ(y[j], 0.5f * static_cast<float>(j - 16)) << j;
}

TEST(GgmlDequant, Q4_0LowNibblesFirstThenHigh) {
  std::vector<uint8_t> b(18);
  put16(b, 0, kHalfTwo);  // d = 2
  for (int j = 0; j < 16; ++j) b[2 + j] = static_cast<uint8_t>(j | (15 - j) << 4);
  const std::vector<float> y = decode(DType::Q4_0, b);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 2.0f * static_cast<float>(j - 8)) << j;            // low nibble: elements 0..15
    EXPECT_EQ(y[16 + j], 2.0f * static_cast<float>(15 - j - 8)) << j;  // high nibble: elements 16..31
  }
}

TEST(GgmlDequant, Q4_1AddsTheMin) {
  std::vector<uint8_t> b(20);
  put16(b, 0, kHalfHalf);  // d = 0.5
  put16(b, 2, 0xbc00);     // m = -1
  for (int j = 0; j < 16; ++j) b[4 + j] = static_cast<uint8_t>(j | 15 << 4);
  const std::vector<float> y = decode(DType::Q4_1, b);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * static_cast<float>(j) - 1.0f) << j;
    EXPECT_EQ(y[16 + j], 6.5f) << j;
  }
}

TEST(GgmlDequant, Q5_0FifthBitsAreLittleEndianPerElement) {
  std::vector<uint8_t> b(22);
  put16(b, 0, kHalfOne);
  const uint32_t qh = (1u << 0) | (1u << 17);  // fifth bit of element 0 and of element 17
  for (int k = 0; k < 4; ++k) b[2 + k] = static_cast<uint8_t>(qh >> (8 * k));
  // nibbles all zero: q = 16 * fifth bit
  const std::vector<float> y = decode(DType::Q5_0, b);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(y[j], (j == 0 || j == 17) ? 0.0f : -16.0f) << j;
}

TEST(GgmlDequant, Q4_KSixBitScalesAndMins) {
  // 8 sub-blocks of 32: scale s_j and min m_j (6 bits each); value d * s_j * q - dmin * m_j. Sub-blocks 0-3
  // keep theirs in the low 6 bits of bytes j and j + 4 of the 12 scale bytes; 4-7 keep the low nibbles in
  // byte j + 4 (scale low, min high) and the top 2 bits in bits 6-7 of bytes j - 4 (scale) and j (min).
  std::vector<uint8_t> b(144);
  put16(b, 0, kHalfOne);      // d
  put16(b, 2, kHalfQuarter);  // dmin
  uint8_t* s = b.data() + 4;
  s[0] = 2;     // sub-block 0: scale 2
  s[4] = 3;     // sub-block 0: min 3
  s[1] = 0x80;  // sub-block 5's scale top bits: 0b10 -> scale 0b10'0001 = 33 with low nibble 1
  s[5] = 0x40;  // sub-block 5's min top bits: 0b01 -> min 0b01'0010 = 18 with low nibble 2
  s[9] = 0x21;  // sub-block 5: scale low nibble 1, min low nibble 2
  uint8_t* qs = b.data() + 16;
  for (int l = 0; l < 32; ++l) qs[l] = static_cast<uint8_t>(l % 16);       // sub-block 0 (low nibbles)
  for (int l = 0; l < 32; ++l) qs[64 + l] = static_cast<uint8_t>(7 << 4);  // sub-block 5 (high nibbles)
  const std::vector<float> y = decode(DType::Q4_K, b);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(y[l], 2.0f * static_cast<float>(l % 16) - 0.75f) << l;
  for (int l = 0; l < 32; ++l) EXPECT_EQ(y[160 + l], 33.0f * 7.0f - 4.5f) << l;
  for (int l = 0; l < 32; ++l) EXPECT_EQ(y[32 + l], 0.0f) << l;  // sub-block 1: scale 0, min 0
}

TEST(GgmlDequant, Q6_KSignedScalesAndOffsetQuants) {
  std::vector<uint8_t> b(210);
  put16(b, 208, kHalfHalf);                       // d = 0.5
  b[192 + 0] = static_cast<uint8_t>(int8_t{-4});  // scale of elements 0..15
  b[192 + 1] = 2;                                 // scale of elements 16..31
  for (int l = 0; l < 32; ++l) b[l] = 0x0f;  // low nibble 15 for elements 0..31 (and 64..95: high nibble 0)
  for (int l = 0; l < 32; ++l) b[128 + l] = 3;  // bits 0-1 of qh: the top two bits of elements 0..31
  const std::vector<float> y = decode(DType::Q6_K, b);
  // q = 15 | 3 << 4 = 63, minus 32 = 31
  for (int l = 0; l < 16; ++l) EXPECT_EQ(y[l], 0.5f * -4.0f * 31.0f) << l;
  for (int l = 16; l < 32; ++l) EXPECT_EQ(y[l], 0.5f * 2.0f * 31.0f) << l;
  for (int l = 64; l < 80; ++l) EXPECT_EQ(y[l], 0.0f) << l;  // scale 0
}

TEST(GgmlDequant, Mxfp4IsE2m1TimesPowerOfTwo) {
  // OCP MX: element = E2M1 value * 2^(e - 127). E2M1 nibble: sign, 2 exponent bits (bias 1), 1 mantissa bit.
  std::vector<uint8_t> b(17);
  b[0] = 127 + 3;         // scale 8
  b[1] = 0x7 | 0x9 << 4;  // element 0: 0b0111 = 6.0; element 16: 0b1001 = -0.5
  b[2] = 0x1 | 0xc << 4;  // element 1: 0b0001 = 0.5 (subnormal); element 17: 0b1100 = -2.0
  b[3] = 0x8;             // element 2: -0
  const std::vector<float> y = decode(DType::MXFP4, b);
  EXPECT_EQ(y[0], 48.0f);
  EXPECT_EQ(y[16], -4.0f);
  EXPECT_EQ(y[1], 4.0f);
  EXPECT_EQ(y[17], -16.0f);
  EXPECT_EQ(y[2], 0.0f);
  // The smallest exponent byte is 2^-127, a float32 subnormal.
  b[0] = 0;
  EXPECT_EQ(decode(DType::MXFP4, b)[0], std::ldexp(6.0f, -127));
}

TEST(GgmlDequant, Nvfp4HasOneUe4m3ScalePer16) {
  std::vector<uint8_t> b(36);
  b[0] = 0x38;                                                // exponent 7, mantissa 0: 1.0
  b[1] = 0x01;                                                // exponent 0, mantissa 1: 2^-9
  b[2] = 0x4b;                                                // exponent 9, mantissa 3: 1.375 * 4 = 5.5
  b[3] = 0x7f;                                                // E4M3 NaN: read as 0
  for (int s = 0; s < 4; ++s) b[4 + 8 * s] = 0x2 | 0xf << 4;  // first element 1.0, ninth -6.0
  const std::vector<float> y = decode(DType::NVFP4, b);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[8], -6.0f);
  EXPECT_EQ(y[16], std::ldexp(1.0f, -9));
  EXPECT_EQ(y[24], std::ldexp(-6.0f, -9));
  EXPECT_EQ(y[32], 5.5f);
  EXPECT_EQ(y[40], -33.0f);
  EXPECT_EQ(y[48], 0.0f);
}

TEST(GgmlDequant, TernaryTypes) {
  // TQ2_0: 2 bits per element, q - 1, element 32l + m from bits 2l of byte m (first 32 bytes); d at 64.
  std::vector<uint8_t> t2(66);
  put16(t2, 64, kHalfTwo);
  t2[0] = 0 | 1 << 2 | 2 << 4;  // elements 0, 32, 64: -1, 0, 1
  const std::vector<float> y2 = decode(DType::TQ2_0, t2);
  EXPECT_EQ(y2[0], -2.0f);
  EXPECT_EQ(y2[32], 0.0f);
  EXPECT_EQ(y2[64], 2.0f);
  // TQ1_0: a byte holds 5 trits as ceil(value * 256 / 243), most significant trit first; element 32n + m
  // is trit n of byte m. Trits (2, 0, 1, 2, 1) = 2*81 + 0*27 + 1*9 + 2*3 + 1 = 178 -> ceil(178 * 256 / 243).
  std::vector<uint8_t> t1(54);
  put16(t1, 52, kHalfOne);
  t1[0] = static_cast<uint8_t>((178 * 256 + 242) / 243);
  const std::vector<float> y1 = decode(DType::TQ1_0, t1);
  EXPECT_EQ(y1[0], 1.0f);
  EXPECT_EQ(y1[32], -1.0f);
  EXPECT_EQ(y1[64], 0.0f);
  EXPECT_EQ(y1[96], 1.0f);
  EXPECT_EQ(y1[128], 0.0f);
  EXPECT_EQ(y1[1], -1.0f);  // a zero byte: all trits 0, i.e. -1
}

TEST(GgmlDequant, DotProductFormats) {
  // Q8_1: fp16 d, fp16 s (ignored), 32 int8.
  std::vector<uint8_t> q81(36);
  put16(q81, 0, kHalfQuarter);
  put16(q81, 2, 0x7c00);  // s = Inf: not part of the values
  q81[4] = 8;
  q81[5] = static_cast<uint8_t>(int8_t{-1});
  const std::vector<float> y81 = decode(DType::Q8_1, q81);
  EXPECT_EQ(y81[0], 2.0f);
  EXPECT_EQ(y81[1], -0.25f);
  // Q8_K: float32 d, 256 int8, 16 int16 sums (ignored).
  std::vector<uint8_t> q8k(292);
  const uint32_t d = std::bit_cast<uint32_t>(0.125f);
  for (int k = 0; k < 4; ++k) q8k[k] = static_cast<uint8_t>(d >> (8 * k));
  q8k[4 + 255] = static_cast<uint8_t>(int8_t{-100});
  EXPECT_EQ(decode(DType::Q8_K, q8k)[255], -12.5f);
}

TEST(GgmlDequant, SignBitTypes) {
  std::vector<uint8_t> q1(18);
  put16(q1, 0, kHalfHalf);
  q1[2] = 0x01;   // element 0 positive, 1..7 negative
  q1[17] = 0x80;  // element 127 positive
  const std::vector<float> y1 = decode(DType::Q1_0, q1);
  EXPECT_EQ(y1[0], 0.5f);
  EXPECT_EQ(y1[1], -0.5f);
  EXPECT_EQ(y1[127], 0.5f);
  std::vector<uint8_t> q2(18);
  put16(q2, 0, kHalfOne);
  q2[2] = 0 | 1 << 2 | 2 << 4 | 3 << 6;  // elements 0..3: -1, 0, 1, 2
  const std::vector<float> y2 = decode(DType::Q2_0, q2);
  EXPECT_EQ(y2[0], -1.0f);
  EXPECT_EQ(y2[1], 0.0f);
  EXPECT_EQ(y2[2], 1.0f);
  EXPECT_EQ(y2[3], 2.0f);
}

// The grid types: a run's scale, an index into ggml's grid per 8 elements, and sign bits. IQ2_XXS stores 7
// sign bits per 8 elements; the eighth makes the count of negated elements even.
TEST(GgmlDequant, Iq2xxsScalesGridEntriesAndEvenSigns) {
  ASSERT_EQ(kIq2xxsGrid[0], 0x0808080808080808u);  // the grid's first entry: eight 8s
  std::vector<uint8_t> b(66);
  put16(b, 0, kHalfOne);
  // Run 0: indices 0, 0, 0, 0; sign fields 0b1 (one bit: element 7 negated too) and 0b11 (two: it is not);
  // scale 3, so each element is (1 * (0.5 + 3) * 0.25) * 8 = 7. Run 1: all zero, (0.5 * 0.25) * 8 = 1.
  const uint32_t aux = 1u | 3u << 7 | 3u << 28;
  for (int k = 0; k < 4; ++k) b[6 + k] = static_cast<uint8_t>(aux >> (8 * k));
  const std::vector<float> y = decode(DType::IQ2_XXS, b);
  EXPECT_EQ(y[0], -7.0f);
  for (int j = 1; j < 7; ++j) EXPECT_EQ(y[j], 7.0f) << j;
  EXPECT_EQ(y[7], -7.0f);
  EXPECT_EQ(y[8], -7.0f);
  EXPECT_EQ(y[9], -7.0f);
  for (int j = 10; j < 16; ++j) EXPECT_EQ(y[j], 7.0f) << j;
  EXPECT_EQ(y[32], 1.0f);
}

// IQ1_M keeps its fp16 d in the top nibbles of its four scale words, and per 8 elements a nibble of three
// high index bits and the sign of the 1/8 shift.
TEST(GgmlDequant, Iq1mAssemblesItsScaleFromNibbles) {
  std::vector<uint8_t> b(56);
  // Octet 0 (low nibble of byte 32): index 0, shift +1/8; octet 1 (high nibble): index 0x700, shift -1/8.
  b[32] = 0xf0;
  // d = 0.5 (0x3800) nibble by nibble, lowest first: words 0 and 1 end in 0, word 2 in 8, word 3 in 3. Run
  // 0's two 3-bit scales, in word 0: 1 (elements 0-15: 0.5 * 3) and 2 (elements 16-31: 0.5 * 5).
  put16(b, 48, 1 | 2 << 3);
  put16(b, 52, 0x8000);
  put16(b, 54, 0x3000);
  const std::vector<float> y = decode(DType::IQ1_M, b);
  for (int j = 0; j < 8; ++j) {
    const float v0 = static_cast<int8_t>(kIq1sGrid[0] >> (8 * j));
    const float v1 = static_cast<int8_t>(kIq1sGrid[0x700] >> (8 * j));
    EXPECT_EQ(y[j], 1.5f * (v0 + 0.125f)) << j;
    EXPECT_EQ(y[8 + j], 1.5f * (v1 - 0.125f)) << j;
    EXPECT_EQ(y[16 + j], 2.5f * (v0 + 0.125f)) << j;
  }
}

TEST(GgmlDequant, HalfScalesConvertExactly) {
  std::vector<uint8_t> b(34);
  b[2] = 1;
  b[3] = 3;
  b[4] = 0;
  auto with_d = [&](uint16_t d) {
    put16(b, 0, d);
    return decode(DType::Q8_0, b);
  };
  EXPECT_EQ(with_d(0x0001)[0], std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(with_d(0x03ff)[0], std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(with_d(0x0400)[0], std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(with_d(0x7bff)[0], 65504.0f);                  // largest finite
  EXPECT_EQ(with_d(0xc000)[1], -6.0f);
  EXPECT_TRUE(std::signbit(with_d(0x8000)[1]));  // -0 * 3 = -0
  EXPECT_EQ(with_d(0x7c00)[1], INFINITY);
  EXPECT_TRUE(std::isnan(with_d(0x7c00)[2]));  // Inf * 0
  EXPECT_TRUE(std::isnan(with_d(0x7e00)[0]));
}

TEST(GgmlDequant, ManyBlocksDecodeAsEachAlone) {
  // Blocks at every offset (18-byte blocks are never aligned) decode as they do one at a time.
  std::vector<uint8_t> blocks(18 * 7 + 1);
  for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = static_cast<uint8_t>(i * 37 + 11);
  for (size_t i = 0; i < 7; ++i) blocks[1 + 18 * i + 1] = 0x3c;  // finite scales
  std::vector<float> all(7 * 32);
  dequantize_blocks(DType::Q4_0, blocks.data() + 1, 7, all.data());
  for (size_t i = 0; i < 7; ++i) {
    std::vector<float> one(32);
    dequantize_blocks(DType::Q4_0, blocks.data() + 1 + 18 * i, 1, one.data());
    EXPECT_EQ(0, std::memcmp(one.data(), all.data() + 32 * i, 32 * sizeof(float))) << i;
  }
}

// ------------------------------------------------------------------------------------------------------
// llama.cpp's own library as the oracle.

using test::kPython;

fs::path ggml_library() {
  return fs::path(MA_SOURCE_DIR) / "tests/peer/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64" /
         "libggml-base.so";
}

// One row of the script's types.tsv.
struct GgmlType {
  int index = -1;
  std::string name;
  int64_t blck_size = 0;
  uint64_t type_size = 0;
  bool to_float = false;
  std::string reference;  // who decoded the blocks: "to_float", "dequantize_row_q8_K", "numpy" or "-"
  size_t blocks = 0, strict_blocks = 0;
};

// Runs the oracle script into the tests' cache (script_output_cache.h): for the whole suite, for its table
// of ggml's types alone (quick); and once more, for blocks of every type we decode, when a test first needs
// them: quantizing IQ1/IQ2 blocks costs ggml some 15 s of grid set-up, which only the bit-for-bit comparison
// should pay.
class GgmlOracle : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(kPython)) {
      skip_reason_ = std::string(kPython) + " is not installed";
      return;
    }
    if (!fs::exists(ggml_library())) {
      skip_reason_ =
          "llama.cpp's library is not installed (scripts/install-peer.sh): " + ggml_library().string();
      return;
    }
    if (test::run_shell(std::string(kPython) + " -c 'import numpy'").exit_code != 0) {
      skip_reason_ = std::string(kPython) + " has no numpy";
      return;
    }
    run_oracle("");  // no type named: the table only
  }

  // Blocks for every type we decode (and the table again, with their counts).
  static void write_blocks() {
    if (blocks_written_) return;
    blocks_written_ = true;
    std::string names;
    for (int t = 0; t <= static_cast<int>(DType::Q2_0); ++t)
      if (can_dequantize(static_cast<DType>(t)))
        names += (names.empty() ? "" : ",") + std::string(dtype_info(static_cast<DType>(t)).name);
    run_oracle(names);
  }

  // Runs the script for the named types (comma-separated), or takes what an earlier test process's run of
  // it left in the cache (the same scripts, llama.cpp build and types), and reads its types.tsv into types_.
  static void run_oracle(const std::string& names) {
    const std::string seed = "20240611";
    dir_ = test::cached_script_output(
        "ggml-to-float", test::cache_key(test::llama_oracle_inputs_key() + '\0' + names + '\0' + seed),
        [&](const fs::path& staging) {
          const test::CommandResult r =
              test::run_shell(std::string(kPython) + " " +
                              test::quoted(fs::path(MA_SOURCE_DIR) / "tests/oracle/ggml_to_float.py") + " " +
                              test::quoted(ggml_library()) + " " + test::quoted(staging) + " " + seed + " " +
                              test::quoted(names));
          return r.exit_code == 0 ? std::string()
                                  : "oracle script failed (" + std::to_string(r.exit_code) + "): " + r.err;
        },
        failure_);
    if (dir_.empty()) return;
    types_.clear();
    std::istringstream tsv(test::read_file(dir_ / "types.tsv"));
    std::string line;
    while (std::getline(tsv, line)) {
      std::istringstream f(line);
      GgmlType g;
      int to_float = 0;
      f >> g.index >> g.name >> g.blck_size >> g.type_size >> to_float >> g.reference >> g.blocks >>
          g.strict_blocks;
      g.to_float = to_float != 0;
      if (!f) {
        failure_ = "bad types.tsv line: " + line;
        return;
      }
      types_[g.index] = g;
    }
  }

  void SetUp() override {
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_TRUE(failure_.empty()) << failure_;
    ASSERT_FALSE(types_.empty());
  }

  static std::string skip_reason_, failure_;
  static fs::path dir_;  // the oracle's files: read them, never write there (a cache shared by tests)
  static std::map<int, GgmlType> types_;
  static bool blocks_written_;
};

std::string GgmlOracle::skip_reason_, GgmlOracle::failure_;
fs::path GgmlOracle::dir_;
std::map<int, GgmlType> GgmlOracle::types_;
bool GgmlOracle::blocks_written_ = false;

std::vector<DType> all_dtypes() {  // Q2_0 is the last of core/dtype.h's enum
  std::vector<DType> v;
  for (int t = 0; t <= static_cast<int>(DType::Q2_0); ++t) v.push_back(static_cast<DType>(t));
  return v;
}

TEST_F(GgmlOracle, BlockLayoutsAreGgmls) {
  for (DType t : all_dtypes()) {
    const DTypeInfo& d = dtype_info(t);
    if (d.ggml_type < 0) continue;
    SCOPED_TRACE(std::string(d.name));
    auto it = types_.find(d.ggml_type);
    ASSERT_NE(it, types_.end()) << "ggml has no type " << d.ggml_type;
    const GgmlType& g = it->second;
    EXPECT_EQ(g.blck_size, static_cast<int64_t>(d.block_elements));
    if (is_block_type(t)) {
      EXPECT_EQ(g.type_size, d.block_bytes);
      EXPECT_EQ(g.name.size(), d.name.size());
      EXPECT_TRUE(std::equal(g.name.begin(), g.name.end(), d.name.begin(), d.name.end(), [](char a, char b) {
        return std::toupper(a) == std::toupper(b);
      })) << g.name;
    } else {
      EXPECT_EQ(g.type_size * 8, d.bits);  // element types: one element's bytes
    }
  }
}

TEST_F(GgmlOracle, EveryDecodedTypeMatchesLlamaCppBitForBit) {
  write_blocks();
  ASSERT_TRUE(failure_.empty()) << failure_;
  size_t compared_types = 0;
  for (DType t : all_dtypes()) {
    if (!can_dequantize(t)) continue;
    const DTypeInfo& d = dtype_info(t);
    SCOPED_TRACE(std::string(d.name));
    ASSERT_GE(d.ggml_type, 0);
    const GgmlType& g = types_.at(d.ggml_type);
    ASSERT_NE(g.reference, "-") << "the oracle wrote no blocks for " << g.name;
    const std::string blocks = test::read_file(dir_ / (g.name + ".blocks"));
    const std::string expected = test::read_file(dir_ / (g.name + ".f32"));
    ASSERT_EQ(blocks.size(), g.blocks * d.block_bytes);
    ASSERT_EQ(expected.size(), g.blocks * d.block_elements * sizeof(float));
    ASSERT_GT(g.strict_blocks, 0u);

    std::vector<float> got(g.blocks * d.block_elements);
    dequantize_blocks(t, reinterpret_cast<const uint8_t*>(blocks.data()), g.blocks, got.data());
    const size_t strict = g.strict_blocks * d.block_elements;
    size_t mismatches = 0, nan_payloads = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      uint32_t want_bits;
      std::memcpy(&want_bits, expected.data() + 4 * i, 4);
      const uint32_t got_bits = std::bit_cast<uint32_t>(got[i]);
      if (got_bits == want_bits) continue;
      // Past the strict runs a scale may be NaN; which NaN comes out is the hardware's choice.
      if (i >= strict && std::isnan(got[i]) && std::isnan(std::bit_cast<float>(want_bits))) {
        ++nan_payloads;
        continue;
      }
      if (++mismatches <= 5)
        ADD_FAILURE() << "element " << i << " (block " << i / d.block_elements << ", "
                      << (i < strict ? "strict" : "raw") << "): got " << got[i] << " (0x" << std::hex
                      << got_bits << "), llama.cpp " << std::bit_cast<float>(want_bits) << " (0x" << want_bits
                      << std::dec << ")";
    }
    EXPECT_EQ(mismatches, 0u) << "of " << got.size() << " elements";
    std::cout << "[ ggml     ] " << d.name << ": " << g.blocks << " blocks (" << g.strict_blocks
              << " strict) bit-identical to " << g.reference;
    if (nan_payloads) std::cout << " (" << nan_payloads << " NaNs with another payload)";
    std::cout << "\n";
    ++compared_types;
  }
  EXPECT_GE(compared_types, 27u);
}

TEST_F(GgmlOracle, EveryBlockTypeLlamaCppDecodesIsDecoded) {
  std::set<std::string> not_decoded;
  for (const auto& [index, g] : types_) {
    if (!g.to_float || g.blck_size <= 1) continue;  // element types (F16, BF16) are not block types
    const std::optional<DType> t = dtype_from_ggml(static_cast<uint32_t>(index));
    ASSERT_TRUE(t.has_value()) << "llama.cpp decodes ggml type " << index << " (" << g.name
                               << "), which core/dtype.h does not know";
    if (!can_dequantize(*t)) not_decoded.insert(std::string(dtype_info(*t).name));
  }
  EXPECT_EQ(not_decoded, std::set<std::string>{});
}

}  // namespace
}  // namespace ma
