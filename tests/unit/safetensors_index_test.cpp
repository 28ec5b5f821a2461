// Sharded checkpoints: index parsing and validation (rows X1-X6) and the index-vs-shards cross-check.
#include "formats/safetensors_index.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "formats/checkpoint.h"
#include "formats/safetensors_writer.h"
#include "test_support.h"

namespace ma {
namespace {

ErrorKind index_error(const std::string& json) {
  return test::error_kind_of([&] { parse_safetensors_index(json, "model.safetensors.index.json"); });
}

TEST(SafetensorsIndex, ParsesWeightMapAndTotalSize) {
  auto idx = parse_safetensors_index(
      R"({"metadata":{"total_size":1234},"weight_map":{"a":"m-1.safetensors","b":"m-2.safetensors","c":"m-1.safetensors"}})",
      "i");
  ASSERT_EQ(idx.shards.size(), 2u);
  EXPECT_EQ(idx.shards[1], "m-2.safetensors");
  EXPECT_EQ(idx.weight_map[2].second, 0u);
  EXPECT_EQ(*idx.total_size, 1234u);
}

// Runs of one shard are taken by comparing the next value with the previous one byte for byte: spacing,
// escapes that spell the same shard, a shard that is a prefix of the next and a value cut short all give
// what the general reader gives.
TEST(SafetensorsIndex, RunsOfOneShardReadLikeAnyOtherEntry) {
  auto idx = parse_safetensors_index(
      "{\"weight_map\": {\"a\": \"m-1.safetensors\",\n  \"b\" :\t\"m-1.safetensors\", "
      "\"c\":\"m-1.safetensors2\","
      "\"d\":\"m\\u002d1.safetensors\",\"e\":\"m-1.safetensors\",\"f\":\"m-1.safetensor\"}}",
      "i");
  ASSERT_EQ(idx.shards, (std::vector<std::string>{"m-1.safetensors", "m-1.safetensors2", "m-1.safetensor"}));
  const std::vector<uint32_t> shard_of = {0, 0, 1, 0, 0, 2};
  ASSERT_EQ(idx.weight_map.size(), shard_of.size());
  for (size_t i = 0; i < shard_of.size(); ++i) EXPECT_EQ(idx.weight_map[i].second, shard_of[i]) << i;
  EXPECT_EQ(index_error(R"({"weight_map":{"a":"m-1.safetensors","b":"m-1.safetensors)"),
            ErrorKind::Malformed);
  EXPECT_EQ(index_error(R"({"weight_map":{"a":"m-1.safetensors","b":"m-1.safetensors"x}})"),
            ErrorKind::Malformed);
}

// An index read from its file (bytes not zero-filled first) is the index its text gives; the names, views
// into those bytes, outlive the FileBytes the index was parsed from. Above the cap nothing is read.
TEST(SafetensorsIndex, FromFileBytesEqualsFromText) {
  test::TempDir dir;
  const std::string text =
      R"({"metadata":{"total_size":99},"weight_map":{"model.layers.0.mlp.experts.1.w1.weight":"m-1.safetensors",)"
      R"("esc\u0061ped":"m-2.safetensors"}})";
  test::write_file(dir / "model.safetensors.index.json", text);
  const SafetensorsIndex from_text = parse_safetensors_index(text, "i");
  SafetensorsIndex from_file = [&] {
    FileBytes bytes = read_file_bytes(dir / "model.safetensors.index.json", kMaxIndexBytes);
    EXPECT_EQ(bytes.view(), text);
    return parse_safetensors_index(std::move(bytes), "i");
  }();
  ASSERT_EQ(from_file.weight_map.size(), from_text.weight_map.size());
  for (size_t i = 0; i < from_text.weight_map.size(); ++i) {
    EXPECT_EQ(from_file.weight_map[i].first, from_text.weight_map[i].first);
    EXPECT_EQ(from_file.weight_map[i].second, from_text.weight_map[i].second);
  }
  EXPECT_EQ(from_file.weight_map[1].first, "escaped");
  EXPECT_EQ(from_file.find("model.layers.0.mlp.experts.1.w1.weight"), 0u);
  EXPECT_EQ(from_file.shards, from_text.shards);
  EXPECT_EQ(from_file.total_size, 99u);
  try {
    read_file_bytes(dir / "model.safetensors.index.json", text.size() - 1);
    ADD_FAILURE() << "read past the cap";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
  }
}

TEST(SafetensorsIndex, X1_ShardPathsCannotEscape) {
  for (const char* bad : {"../../etc/passwd", "/abs/x.safetensors", "sub/../../x", "C:\\\\x",
                          "\\\\\\\\host\\\\share\\\\x", "a//b", "./x", ""})
    EXPECT_EQ(index_error(std::string(R"({"weight_map":{"w":")") + bad + "\"}}"), ErrorKind::Unsafe) << bad;
  EXPECT_TRUE(is_contained_relative_path("sub/model-00001.safetensors"));
}

TEST(SafetensorsIndex, X5_Malformed) {
  EXPECT_EQ(index_error(R"({"weight_map":[]})"), ErrorKind::Malformed);
  EXPECT_EQ(index_error(R"({"weight_map":{"w":1}})"), ErrorKind::Malformed);
  EXPECT_EQ(index_error(R"({"weight_map":{"w":"a","w":"b"}})"), ErrorKind::Malformed);
  // Two weight maps: Python's json keeps the last, so merging them would list tensors transformers never
  // sees.
  EXPECT_EQ(index_error(R"({"weight_map":{"v":"a"},"weight_map":{"w":"b"}})"), ErrorKind::Malformed);
  EXPECT_EQ(index_error(R"({"metadata":{"total_size":-1},"weight_map":{}})"), ErrorKind::Malformed);
  EXPECT_EQ(index_error(std::string(200, '[')), ErrorKind::Malformed);
}

TEST(SafetensorsIndex, X6_TooManyShards) {
  std::string j = R"({"weight_map":{)";
  for (int i = 0; i <= 10000; ++i)
    j += (i ? "," : "") + std::string("\"t") + std::to_string(i) + "\":\"s" + std::to_string(i) +
         ".safetensors\"";
  EXPECT_EQ(index_error(j + "}}"), ErrorKind::Limit);
}

class ShardedDir : public ::testing::Test {
 protected:
  test::TempDir dir;
  void shard(const std::string& name, const std::vector<std::string>& tensors) {
    std::vector<TensorToWrite> t;
    for (const auto& n : tensors) t.push_back({n, DType::F32, {2}, std::string(8, '\0')});
    write_safetensors(dir / name, t);
  }
  ErrorKind read_error() {
    try {
      read_checkpoint(locate_local_model(dir.path().string()));
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::Internal;
  }
};

TEST_F(ShardedDir, ReadsAllShardsAndAgreesWithIndex) {
  shard("m-1.safetensors", {"a", "b"});
  shard("m-2.safetensors", {"c"});
  test::write_file(
      dir / "model.safetensors.index.json",
      R"({"metadata":{"total_size":24},"weight_map":{"a":"m-1.safetensors","b":"m-1.safetensors","c":"m-2.safetensors"}})");
  Checkpoint ck = read_checkpoint(locate_local_model(dir.path().string()));
  EXPECT_TRUE(ck.headers_read);
  ASSERT_EQ(ck.tensor_count(), 3u);
  ASSERT_EQ(ck.files[1].tensors.size(), 1u);
  EXPECT_EQ(ck.files[1].tensors[0].name, "c");
  EXPECT_EQ(ck.files[1].tensors[0].file_index, 1u);
  // Once the shards are checked, the index keeps what the report still names (shards, total_size), not
  // its names: they are a large model's largest allocation nobody reads again.
  ASSERT_TRUE(ck.index.has_value());
  EXPECT_EQ(ck.index->shards, (std::vector<std::string>{"m-1.safetensors", "m-2.safetensors"}));
  EXPECT_EQ(ck.index->total_size, 24u);
  EXPECT_TRUE(ck.index->weight_map.empty());
  EXPECT_FALSE(ck.index->find("a"));
}

TEST_F(ShardedDir, X3_IndexAndShardsMustAgree) {
  shard("m-1.safetensors", {"a", "b"});
  shard("m-2.safetensors", {"c"});
  test::write_file(dir / "model.safetensors.index.json",
                   R"({"weight_map":{"a":"m-1.safetensors","c":"m-2.safetensors"}})");
  EXPECT_EQ(read_error(), ErrorKind::Malformed) << "b is stored but not indexed";
  test::write_file(dir / "model.safetensors.index.json",
                   R"({"weight_map":{"a":"m-1.safetensors","b":"m-2.safetensors","c":"m-2.safetensors"}})");
  EXPECT_EQ(read_error(), ErrorKind::Malformed) << "b is in the other shard";
  test::write_file(
      dir / "model.safetensors.index.json",
      R"({"weight_map":{"a":"m-1.safetensors","b":"m-1.safetensors","c":"m-2.safetensors","d":"m-3.safetensors"}})");
  EXPECT_EQ(read_error(), ErrorKind::NotFound) << "m-3 is missing while others are present";
}

TEST_F(ShardedDir, DisagreementsNameTheFilesByTheirPath) {
  // As every other error does: with two models (compare A B) a bare shard name would not say which is wrong.
  shard("m-1.safetensors", {"a", "b"});
  const auto message = [&] {
    try {
      read_checkpoint(locate_local_model(dir.path().string()));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  test::write_file(dir / "model.safetensors.index.json", R"({"weight_map":{"a":"m-1.safetensors"}})");
  EXPECT_NE(message().find((dir / "m-1.safetensors").string() + ": tensor 'b'"), std::string::npos)
      << message();
  test::write_file(dir / "model.safetensors.index.json",
                   R"({"weight_map":{"a":"m-1.safetensors","b":"m-1.safetensors","c":"m-1.safetensors"}})");
  EXPECT_NE(message().find((dir / "model.safetensors.index.json").string() + ": weight_map['c']"),
            std::string::npos)
      << message();
}

TEST_F(ShardedDir, IndexWithoutShardsGivesNamesOnly) {
  test::write_file(dir / "model.safetensors.index.json",
                   R"({"weight_map":{"a":"m-1.safetensors","c":"m-2.safetensors"}})");
  Checkpoint ck = read_checkpoint(locate_local_model(dir.path().string()));
  EXPECT_FALSE(ck.headers_read);
  ASSERT_EQ(ck.tensor_count(), 2u);
  EXPECT_EQ(ck.files.size(), 2u);
}

TEST_F(ShardedDir, SameTensorInTwoUnindexedFilesIsAnError) {
  shard("a.safetensors", {"x"});
  shard("b.safetensors", {"x"});
  EXPECT_EQ(read_error(), ErrorKind::Malformed);
}

}  // namespace
}  // namespace ma
