// The level form of the ggml block types (formats/ggml_levels.h) against their element decoder: in every
// group, the levels weighted by their counts are exactly the elements dequantize_blocks decodes, bit for bit,
// on random blocks (random scales included: NaN, infinite and subnormal ones), NaNs aside as one value.
#include "formats/ggml_levels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "core/dtype.h"
#include "formats/ggml_dequant.h"

namespace ma {
namespace {

// The bit patterns of a group's elements, with how many elements have each. Every NaN counts as one pattern:
// its sign and payload follow whichever operand the compiler put first, and statistics only count NaNs.
using Multiset = std::map<uint32_t, uint32_t>;

uint32_t pattern(float x) {
  return std::isnan(x) ? 0x7fc00000u : std::bit_cast<uint32_t>(x);
}

TEST(GgmlLevels, EveryGroupsLevelsWeightedByCountsAreItsElements) {
  std::mt19937 rng(20261127);
  size_t types = 0;
  for (unsigned t = 0; t <= static_cast<unsigned>(DType::Q2_0); ++t) {  // Q2_0: the enum's last
    const DType type = static_cast<DType>(t);
    const std::optional<GgmlLevelShape> shape = ggml_level_shape(type);
    if (!shape) continue;
    ++types;
    SCOPED_TRACE(std::string(dtype_info(type).name));
    const DTypeInfo& info = dtype_info(type);
    ASSERT_TRUE(can_dequantize(type));
    ASSERT_EQ(info.block_elements % shape->group_elements, 0u);
    ASSERT_LT(shape->levels, shape->group_elements);
    constexpr size_t kBlocks = 64;
    std::vector<uint8_t> bytes(kBlocks * info.block_bytes);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    std::vector<float> elements(kBlocks * info.block_elements);
    dequantize_blocks(type, bytes.data(), kBlocks, elements.data());
    const size_t groups = kBlocks * info.block_elements / shape->group_elements;
    std::vector<float> levels(groups * shape->levels);
    std::vector<uint8_t> counts(groups * shape->levels);
    block_levels(type, bytes.data(), kBlocks, levels.data(), counts.data());
    for (size_t g = 0; g < groups; ++g) {
      Multiset decoded, leveled;
      for (size_t i = 0; i < shape->group_elements; ++i)
        ++decoded[pattern(elements[g * shape->group_elements + i])];
      for (size_t q = 0; q < shape->levels; ++q)
        if (const uint8_t c = counts[g * shape->levels + q])
          leveled[pattern(levels[g * shape->levels + q])] += c;
      ASSERT_EQ(decoded, leveled) << "group " << g;
    }
  }
  EXPECT_EQ(types, 8u);  // Q4_0, Q4_1, IQ4_NL, IQ4_XS, MXFP4, Q2_K, Q3_K, Q4_K
}

// A level no element holds has count 0, and the counts of a group sum to its size.
TEST(GgmlLevels, CountsCoverTheGroup) {
  std::vector<uint8_t> block(144, 0);  // Q4_K: zero scales, every nibble 0 -> code 0 everywhere
  block[16] = 0x21;                    // element 0 has code 1 (group 0), element 32 code 2 (group 1)
  std::vector<float> levels(128);
  std::vector<uint8_t> counts(128);
  block_levels(DType::Q4_K, block.data(), 1, levels.data(), counts.data());
  EXPECT_EQ(counts[0], 31);
  EXPECT_EQ(counts[1], 1);
  EXPECT_EQ(counts[16], 31);
  EXPECT_EQ(counts[16 + 2], 1);
  for (size_t g = 0; g < 8; ++g) {
    unsigned sum = 0;
    for (size_t q = 0; q < 16; ++q) sum += counts[16 * g + q];
    EXPECT_EQ(sum, 32u) << g;
  }
}

}  // namespace
}  // namespace ma
