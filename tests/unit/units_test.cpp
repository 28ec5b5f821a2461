// The number spellings every report shares (core/units.h), as its comments promise them.
#include "core/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ma {
namespace {

TEST(Units, CountsTakeThousandsSeparators) {
  EXPECT_EQ(with_thousands(0), "0");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(with_thousands(1000), "1,000");
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
  EXPECT_EQ(with_thousands(18446744073709551615ull), "18,446,744,073,709,551,615");
}

TEST(Units, RatesRoundToTheNearestWholeWithSeparators) {
  EXPECT_EQ(rounded_with_thousands(40745184.4), "40,745,184");
  EXPECT_EQ(rounded_with_thousands(999.5), "1,000");  // half away from zero, as llround
  EXPECT_EQ(rounded_with_thousands(0.4), "0");
  EXPECT_EQ(rounded_with_thousands(-3), "0");
  EXPECT_EQ(rounded_with_thousands(std::nan("")), "0");
  // Past what an unsigned 64-bit count holds: no wrap, no undefined conversion.
  EXPECT_EQ(rounded_with_thousands(std::numeric_limits<double>::infinity()), "inf");
}

TEST(Units, SizesAndRunsAsTheHeaderShowsThem) {
  EXPECT_EQ(human_bytes(13'476'831'232), "12.55 GiB");
  EXPECT_EQ(bytes_exactly(13'476'831'232), "12.55 GiB (13,476,831,232 bytes)");
  EXPECT_EQ(human_count(6'738'415'616), "6.74B");
  EXPECT_EQ(index_ranges({0, 1, 2, 5, 7, 8, 9}), "0-2,5,7-9");
  EXPECT_EQ(index_ranges({}), "");
}

}  // namespace
}  // namespace ma
