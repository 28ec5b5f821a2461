// core/text.h's first_and_more: the one-line lists of files that notes and refusals give.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/text.h"

namespace ma::test {
namespace {

TEST(FirstAndMore, ShowsTheFirstItemsThenCountsTheRest) {
  EXPECT_EQ(first_and_more({}, 3), "");
  EXPECT_EQ(first_and_more({"a"}, 3), "a");
  EXPECT_EQ(first_and_more({"a", "b", "c"}, 3), "a, b, c");
  EXPECT_EQ(first_and_more({"a", "b", "c", "d"}, 3), "a, b, c and 1 more");
  EXPECT_EQ(first_and_more({"a", "b", "c", "d", "e", "f", "g"}, 2), "a, b and 5 more");
}

}  // namespace
}  // namespace ma::test
