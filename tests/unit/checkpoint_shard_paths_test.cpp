// A shard an index names must stay inside the model's directory once symbolic links are followed, as ONNX
// external data must: a link in the directory (a cloned repository may hold one) must not let an index name
// any file on the machine (it opened /etc/passwd). A Hugging Face cache snapshot's links into its repo's
// blobs/ stay inside, and so does a link to a directory within the model's.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.h"
#include "formats/checkpoint.h"
#include "formats/model_files.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// A safetensors file of one F32 tensor "w" of 2 elements.
std::string shard_of_one_tensor() {
  const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  return test::le64(header.size()) + header + std::string(8, '\0');
}

// The error reading the model in `dir`, or "" when it reads.
std::string shard_path_error(const fs::path& dir, ErrorKind& kind) {
  try {
    read_checkpoint(locate_local_model(dir.string()));
  } catch (const Error& e) {
    kind = e.kind();
    return e.what();
  }
  return "";
}

TEST(CheckpointShardPaths, AShardThroughALinkOutOfTheDirectoryIsUnsafe) {
  test::TempDir tmp;
  fs::create_directories(tmp / "outside");
  fs::create_directories(tmp / "m");
  test::write_file(tmp / "outside" / "model.safetensors", shard_of_one_tensor());
  test::write_file(tmp / "outside" / "pytorch_model.bin", "not read");
  fs::create_symlink(tmp / "outside", tmp / "m" / "sub");
  test::write_file(tmp / "m" / "model.safetensors.index.json",
                   R"({"metadata": {}, "weight_map": {"w": "sub/model.safetensors"}})");
  ErrorKind kind{};
  std::string why = shard_path_error(tmp / "m", kind);
  EXPECT_EQ(kind, ErrorKind::Unsafe) << why;
  EXPECT_NE(why.find("model.safetensors.index.json: shard 'sub/model.safetensors': named by the index, but "
                     "resolves outside the model's directory"),
            std::string::npos)
      << why;
  // So is a shard that is itself a link out, listed beside the index: the directory's listing says it is a
  // link, so it is not taken as inside.
  fs::create_symlink(tmp / "outside" / "model.safetensors", tmp / "m" / "model-00001-of-00001.safetensors");
  test::write_file(tmp / "m" / "model.safetensors.index.json",
                   R"({"metadata": {}, "weight_map": {"w": "model-00001-of-00001.safetensors"}})");
  why = shard_path_error(tmp / "m", kind);
  EXPECT_EQ(kind, ErrorKind::Unsafe) << why;
  EXPECT_NE(why.find("shard 'model-00001-of-00001.safetensors': named by the index, but resolves outside"),
            std::string::npos)
      << why;
  fs::remove(tmp / "m" / "model-00001-of-00001.safetensors");
  // A PyTorch index is refused the same way, before its shard is opened.
  fs::remove(tmp / "m" / "model.safetensors.index.json");
  test::write_file(tmp / "m" / "pytorch_model.bin.index.json",
                   R"({"metadata": {}, "weight_map": {"w": "sub/pytorch_model.bin"}})");
  why = shard_path_error(tmp / "m", kind);
  EXPECT_EQ(kind, ErrorKind::Unsafe) << why;
  EXPECT_NE(why.find("shard 'sub/pytorch_model.bin': named by the index, but resolves outside"),
            std::string::npos)
      << why;
}

TEST(CheckpointShardPaths, LinksThatStayInsideAreRead) {
  test::TempDir tmp;
  // A link to a directory inside the model's.
  fs::create_directories(tmp / "m" / "real");
  test::write_file(tmp / "m" / "real" / "model.safetensors", shard_of_one_tensor());
  fs::create_symlink("real", tmp / "m" / "sub");
  test::write_file(tmp / "m" / "model.safetensors.index.json",
                   R"({"metadata": {}, "weight_map": {"w": "sub/model.safetensors"}})");
  EXPECT_EQ(read_checkpoint(locate_local_model((tmp / "m").string())).tensor_count(), 1u);
  // A Hugging Face cache snapshot: every file a link into the repo's blobs/.
  const fs::path repo = tmp / "hub" / "models--org--name";
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "snapshots" / "rev");
  test::write_file(repo / "blobs" / "aaaa", shard_of_one_tensor());
  test::write_file(repo / "blobs" / "bbbb",
                   R"({"metadata": {}, "weight_map": {"w": "model-1.safetensors"}})");
  fs::create_symlink("../../blobs/aaaa", repo / "snapshots" / "rev" / "model-1.safetensors");
  fs::create_symlink("../../blobs/bbbb", repo / "snapshots" / "rev" / "model.safetensors.index.json");
  EXPECT_EQ(read_checkpoint(locate_local_model((repo / "snapshots" / "rev").string())).tensor_count(), 1u);
}

// A shard whose link is broken (a cache blob deleted) is present: opening it names it (exit 8), where it
// counted as missing and, with no other shard present, the index alone was read as if nothing were wrong.
TEST(CheckpointShardPaths, AShardWhoseLinkIsBrokenIsNamed) {
  test::TempDir tmp;
  fs::create_symlink("../blobs/deleted", tmp / "model-1.safetensors");
  test::write_file(tmp / "model.safetensors.index.json",
                   R"({"metadata": {}, "weight_map": {"w": "model-1.safetensors"}})");
  ErrorKind kind{};
  const std::string why = shard_path_error(tmp.path(), kind);
  EXPECT_EQ(kind, ErrorKind::NotFound) << why;
  EXPECT_NE(why.find("model-1.safetensors: cannot open: No such file or directory"), std::string::npos)
      << why;
}

}  // namespace
}  // namespace ma
