// The bos, eos and pad ids config.json and generation_config.json state, read as a stream that keeps only
// those keys: the values Python's json would give (the last of duplicate keys, text_config's when the top
// level states none, ids only; a value that is no id named), a generation config over its 1 MiB cap or a file
// that cannot be opened named in a problem line instead of read or silently skipped.
#include "formats/stated_token_ids.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using IdLists = std::vector<std::vector<uint64_t>>;

IdLists stated_ids_of(const StatedIds& s) {
  return IdLists(s.ids.begin(), s.ids.end());
}

TEST(StatedTokenIds, OnlyTheRoleKeysAreReadAsPythonsJsonGivesThem) {
  test::TempDir tmp;
  // A long array of labels before the ids, which a document would hold value by value; a duplicate
  // bos_token_id (the last wins); an eos list with items that are no ids (a string, -1, null, a nested
  // list); pad only in text_config; and a text_config bos that the top level's hides.
  std::string labels = "[";
  for (int i = 0; i < 10000; ++i) labels += (i ? ",\"" : "\"") + std::to_string(i) + "\"";
  labels += "]";
  test::write_file(
      tmp / "config.json",
      "{\"bos_token_id\": 9, \"labels\": " + labels +
          ", \"bos_token_id\": 1, \"eos_token_id\": [2, \"x\", -1, null, [4], 3], \"pad_token_id\": "
          "null, \"text_config\": {\"bos_token_id\": 8, \"pad_token_id\": 7, \"x_token_id\": 6}, "
          "\"nan\": NaN}");
  test::write_file(tmp / "generation_config.json", "{\"eos_token_id\": 5, \"pad_token_id\": 4294967296}");
  std::vector<std::string> problems;
  const std::vector<StatedIds> stated = read_all_stated_ids(tmp.path(), problems);
  // What states an id that is none is named (-1 and null state "none"): the comparison skipped it.
  EXPECT_EQ(problems,
            (std::vector<std::string>{
                "config.json: eos_token_id: a string is no token id: not compared with the tokenizer's",
                "config.json: eos_token_id: a list is no token id: not compared with the tokenizer's",
                "generation_config.json: pad_token_id: 4294967296 is no token id (a whole number from 0 to "
                "4,294,967,295): not compared with the tokenizer's"}));
  ASSERT_EQ(stated.size(), 2u);
  EXPECT_EQ(stated[0].file, "config.json");
  EXPECT_EQ(stated_ids_of(stated[0]), (IdLists{{1}, {2, 3}, {7}}));  // bos, eos, pad
  EXPECT_EQ(stated[1].file, "generation_config.json");
  EXPECT_EQ(stated_ids_of(stated[1]), (IdLists{{}, {5}, {}}));  // 2^32 is no 32-bit id
}

// A generation config is a few hundred bytes: one over 1 MiB is not read, and the comparison says so, naming
// the file; config.json is still read. A config.json of 2 MB (ImageNet-21k's labels make 1.5 MB) is read,
// its ids found after the labels.
TEST(StatedTokenIds, AGenerationConfigOverTheCapIsAProblemNotADocument) {
  test::TempDir tmp;
  std::string zeros = "[0";
  while (zeros.size() <= (2u << 20)) zeros += ",0";
  zeros += "]";
  test::write_file(tmp / "generation_config.json", "{\"eos_token_id\": 2, \"x\": " + zeros + "}");
  test::write_file(tmp / "config.json", "{\"x\": " + zeros + ", \"eos_token_id\": 5}");
  std::vector<std::string> problems;
  const std::vector<StatedIds> stated = read_all_stated_ids(tmp.path(), problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("generation_config.json could not be read"), std::string::npos) << problems[0];
  ASSERT_EQ(stated.size(), 1u);
  EXPECT_EQ(stated[0].file, "config.json");
  EXPECT_EQ(stated_ids_of(stated[0]), (IdLists{{}, {5}, {}}));
}

// A generation_config.json that is a broken or looping link is there: the comparison names it and why,
// where it was skipped as if absent.
TEST(StatedTokenIds, ALinkThatCannotBeFollowedIsAProblemNotAbsent) {
  test::TempDir tmp;
  fs::create_symlink("../blobs/deleted", tmp / "generation_config.json");
  fs::create_symlink("config.json", tmp / "config.json");
  std::vector<std::string> problems;
  EXPECT_TRUE(read_all_stated_ids(tmp.path(), problems).empty());
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("config.json could not be read"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("Too many levels of symbolic links"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("generation_config.json could not be read"), std::string::npos) << problems[1];
  EXPECT_NE(problems[1].find("No such file or directory"), std::string::npos) << problems[1];
}

}  // namespace
}  // namespace ma
