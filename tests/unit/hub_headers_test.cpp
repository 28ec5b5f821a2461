// The response-header parsers of the Hub client (hub/response_headers.h) against what a broken or hostile
// server can send: infinities, NaN, negatives, numbers past 64 bits, empty values, spaces and trailing junk.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hub/response_headers.h"

namespace ma::test {
namespace {

const std::vector<std::string> kGarbage = {"",
                                           "   ",
                                           "nan",
                                           "-nan",
                                           "NaN",
                                           "-1",
                                           "-inf",
                                           "12abc",
                                           "1 2",
                                           "0x10",
                                           "+5",
                                           "\x01",
                                           "Wed, 21 Oct 2015 07:28:00 GMT"};

TEST(ResponseHeaders, RetryAfterSecondsAreFiniteAndNonNegative) {
  EXPECT_EQ(parse_retry_after("120"), 120.0);
  EXPECT_EQ(parse_retry_after(" 7\t"), 7.0);
  EXPECT_EQ(parse_retry_after("2.5"), 2.5);
  EXPECT_EQ(parse_retry_after("0"), 0.0);
  EXPECT_EQ(parse_retry_after("-0"), 0.0);
  EXPECT_EQ(parse_retry_after("1e-400"), 0.0);  // below the smallest double: no wait
}

TEST(ResponseHeaders, RetryAfterBeyondAnyCapIsClampedNotWrapped) {
  for (const char* huge :
       {"inf", "Infinity", "1e300", "1e400", "18446744073709551616", "99999999999999999999999"})
    EXPECT_EQ(parse_retry_after(huge), kMaxHeaderWaitSeconds) << huge;
  EXPECT_EQ(parse_retry_after("86401"), kMaxHeaderWaitSeconds);
}

TEST(ResponseHeaders, RetryAfterGarbageIsAbsent) {
  for (const std::string& bad : kGarbage) EXPECT_FALSE(parse_retry_after(bad)) << bad;
  EXPECT_FALSE(parse_header(nullptr, parse_retry_after));
}

TEST(ResponseHeaders, RateLimitResetOnlyWhenNothingRemains) {
  EXPECT_EQ(parse_ratelimit_reset("\"api\";r=0;t=55"), 55.0);
  EXPECT_EQ(parse_ratelimit_reset("\"api\"; r=0; t=5"), 5.0);
  EXPECT_FALSE(parse_ratelimit_reset("\"api\";r=5;t=55"));                // quota left: no reason to wait
  EXPECT_EQ(parse_ratelimit_reset("\"a\";r=0;t=5, \"b\";r=0;t=9"), 9.0);  // the longest exhausted policy
  EXPECT_EQ(parse_ratelimit_reset("\"a\";r=1;t=50, \"b\";r=0;t=3"), 3.0);
  EXPECT_EQ(parse_ratelimit_reset("\"api\";r=0;t=inf"), kMaxHeaderWaitSeconds);
  EXPECT_EQ(parse_ratelimit_reset("\"api\";r=0;t=1e300"), kMaxHeaderWaitSeconds);
}

TEST(ResponseHeaders, RateLimitGarbageIsAbsent) {
  for (const char* bad :
       {"", "   ", "\"api\"", "\"api\";r=0", "\"api\";t=5", "\"api\";r=0;t=nan", "\"api\";r=0;t=-1",
        "\"api\";r=0;t=5junk", "\"api\";r=0;t=", "\"api\";r=-1;t=5", "\"api\";r=nan;t=5",
        "\"api\";r=18446744073709551616;t=5", "r=0;t=5", "\"api\";r=0;;t", "\"api\";r=0;t=0x10"})
    EXPECT_FALSE(parse_ratelimit_reset(bad)) << bad;
}

TEST(ResponseHeaders, ByteCountsFitSixtyFourBits) {
  EXPECT_EQ(parse_byte_count("0"), 0u);
  EXPECT_EQ(parse_byte_count("305904"), 305904u);
  EXPECT_EQ(parse_byte_count(" 12 "), 12u);
  EXPECT_EQ(parse_byte_count("18446744073709551615"), UINT64_MAX);
  for (const std::string& bad : kGarbage) EXPECT_FALSE(parse_byte_count(bad)) << bad;
  for (const char* bad : {"18446744073709551616", "inf", "1e3", "1.0", "-0"})
    EXPECT_FALSE(parse_byte_count(bad)) << bad;
}

TEST(ResponseHeaders, ContentRangeIsConsistent) {
  auto cr = parse_content_range("bytes 0-99/1000");
  ASSERT_TRUE(cr);
  EXPECT_EQ(cr->first, 0u);
  EXPECT_EQ(cr->last, 99u);
  EXPECT_EQ(cr->total, 1000u);
  EXPECT_TRUE(parse_content_range("Bytes 5-5/6"));
  cr = parse_content_range("bytes 0-18446744073709551614/18446744073709551615");
  ASSERT_TRUE(cr);
  EXPECT_EQ(cr->total, UINT64_MAX);
}

TEST(ResponseHeaders, ContentRangeGarbageIsAbsent) {
  for (const std::string& bad : kGarbage) EXPECT_FALSE(parse_content_range(bad)) << bad;
  for (const char* bad :
       {"bytes", "bytes ", "bytes 0-99/*", "bytes */1000", "bytes 100-99/1000", "bytes 0-1000/1000",
        "bytes 0-18446744073709551615/18446744073709551616", "bytes -1-5/10", "bytes 0-9/10junk",
        "bytes  0-9/10", "bytes 0 -9/10", "items 0-9/10", "bytes 0-9/nan", "bytes 0-9/inf", "bytes 0-9/-10",
        "bytes 0-9", "bytes 0/9-10", "bytes inf-9/10", "bytes 0-1e3/5000"})
    EXPECT_FALSE(parse_content_range(bad)) << bad;
}

}  // namespace
}  // namespace ma::test
