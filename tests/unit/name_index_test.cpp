// NameIndex finds every name it holds and no other, whatever the names' lengths (its hash reads whole words,
// overlapping at the end) and however alike they are, and reports the first name stored twice.
#include "core/name_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using ma::NameIndex;

std::string_view name_at(const void* names, uint32_t i) {
  return (*static_cast<const std::vector<std::string>*>(names))[i];
}

TEST(NameIndex, FindsEveryNameOfEveryLengthAndNothingElse) {
  // Names of every length up to 70 bytes, and names that differ from them in one byte only: the first,
  // the last, or one in the middle (so the word-wise hash must let each byte count, tails included).
  std::vector<std::string> names;
  for (size_t n = 0; n <= 70; ++n) {
    std::string s;
    for (size_t k = 0; k < n; ++k) s += static_cast<char>('a' + (k * 7 + n) % 26);
    names.push_back(s);
    if (n == 0) continue;
    for (size_t at : {size_t{0}, n / 2, n - 1}) {
      std::string t = s;
      t[at] = static_cast<char>(t[at] ^ 0x40);
      names.push_back(t);
    }
  }
  std::vector<std::string> unique;
  for (const std::string& s : names)
    if (std::find(unique.begin(), unique.end(), s) == unique.end()) unique.push_back(s);
  const NameIndex index(static_cast<uint32_t>(unique.size()), name_at, &unique);
  EXPECT_FALSE(index.first_duplicate());
  for (uint32_t i = 0; i < unique.size(); ++i) {
    ASSERT_EQ(index.find(unique[i]), i) << "'" << unique[i] << "'";
    // The same bytes elsewhere, between other bytes (a name in a header's text): found all the same.
    const std::string framed = "\"" + unique[i] + "\":{\"dtype\":\"BF16\"}";
    ASSERT_EQ(index.find(std::string_view(framed).substr(1, unique[i].size())), i) << "'" << unique[i] << "'";
    std::string longer = unique[i] + "x";
    if (std::find(unique.begin(), unique.end(), longer) == unique.end()) {
      EXPECT_FALSE(index.find(longer)) << "'" << longer << "'";
    }
  }
  EXPECT_FALSE(index.find("model.layers.0.mlp.experts.17.up_proj.weight"));
}

TEST(NameIndex, ReportsTheFirstNameStoredTwice) {
  const std::vector<std::string> names = {"model.embed_tokens.weight", "model.norm.weight", "lm_head.weight",
                                          "model.norm.weight", "lm_head.weight"};
  const NameIndex index(static_cast<uint32_t>(names.size()), name_at, &names);
  EXPECT_EQ(index.first_duplicate(), 3u);
  EXPECT_EQ(index.find("model.norm.weight"), 1u);
}

}  // namespace
