// The typo suggestions of unknown option names: the edit distance they rank by, and how near a name must be
// to be offered.
#include "core/nearest_name.h"

#include <gtest/gtest.h>

namespace ma::test {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("--json", "--json"), 0u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);  // k->s, e->i, +g
  EXPECT_EQ(edit_distance("--jsn", "--json"), 1u);    // an insertion
  EXPECT_EQ(edit_distance("--jsno", "--json"), 1u);   // two neighbours swapped: one edit, not two
  // The optimal-string-alignment distance edits no substring twice: "ca" -> "abc" is 3, not the 2 of
  // ca -> ac -> abc.
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(NearestName, OffersTheNearestWhenItIsATypo) {
  const std::vector<std::string_view> names{"--csv", "--json", "--quiet", "-q", "--context", "--batch"};
  EXPECT_EQ(nearest_name("--jsn", names), "--json");
  EXPECT_EQ(nearest_name("--jsno", names), "--json");
  EXPECT_EQ(nearest_name("--contxt", names), "--context");
  EXPECT_EQ(nearest_name("--xyz", names), std::nullopt);         // 3 edits from --csv: more than 5 / 3
  EXPECT_EQ(nearest_name("-x", names), std::nullopt);            // two characters allow no edit
  EXPECT_EQ(nearest_name("--batch-size", names), std::nullopt);  // 5 edits from --batch: more than 12 / 3
  EXPECT_EQ(nearest_name("--ab", {"--ac", "--ad"}), "--ac");     // the first of equally near names
  EXPECT_EQ(nearest_name("--json", {}), std::nullopt);
}

}  // namespace
}  // namespace ma::test
