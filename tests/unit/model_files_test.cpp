// Which local files make up a model when some of its names are symbolic links that cannot be followed
// (dangling: a Hub cache blob deleted; looping): a name that exists is the model's file, opened and its
// failure named in one line with its exit code, never an internal error, never skipped, and a local path
// that is such a link is local, never taken for a Hub id.
#include "formats/model_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <utility>

#include "core/error.h"
#include "io/file_source.h"
#include "test_support.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// A safetensors file of one F32 tensor "w" of 2 elements.
std::string one_tensor_safetensors() {
  const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  return test::le64(header.size()) + header + std::string(8, '\0');
}

// The error reading `path` as a small file gives: its kind and line.
std::pair<ErrorKind, std::string> read_error(const fs::path& path) {
  try {
    read_small_file(path, 1 << 20);
  } catch (const Error& e) {
    return {e.kind(), e.what()};
  }
  return {ErrorKind::Internal, "read"};
}

TEST(ModelFiles, PresentNamesIncludeLinksThatCannotBeFollowed) {
  test::TempDir tmp;
  fs::create_symlink("loop", tmp / "loop");
  fs::create_symlink("../blobs/deleted", tmp / "dangling");
  test::write_file(tmp / "file", "x");
  EXPECT_TRUE(path_is_present(tmp / "loop"));
  EXPECT_TRUE(path_is_present(tmp / "dangling"));
  EXPECT_TRUE(path_is_present(tmp / "file"));
  EXPECT_TRUE(path_is_present(tmp / "loop" / "x"));  // below a loop: there, but unreachable
  EXPECT_FALSE(path_is_present(tmp / "absent"));
  EXPECT_FALSE(path_is_present(tmp / "absent" / "x"));
  EXPECT_FALSE(path_is_present(tmp / "file" / "x"));  // below a file: nothing
}

// `modelanalyzer model.safetensors` beside a config.json that loops was "internal error: filesystem error"
// (exit 1): the config is the model's, and reading it names it (exit 9). The same in a directory, where a
// config.json, an index or a weight file whose link is broken was left out as if absent: read, exit 8.
TEST(ModelFiles, AConfigThatCannotBeFollowedIsTheModelsAndNamesItself) {
  test::TempDir tmp;
  test::write_file(tmp / "model.safetensors", one_tensor_safetensors());
  fs::create_symlink("config.json", tmp / "config.json");
  const LocalModelFiles single = locate_local_model((tmp / "model.safetensors").string());
  ASSERT_TRUE(single.config.has_value());
  EXPECT_EQ(*single.config, tmp / "config.json");
  auto [kind, line] = read_error(*single.config);
  EXPECT_EQ(kind, ErrorKind::LocalIO) << line;
  EXPECT_NE(line.find("config.json: cannot open: Too many levels of symbolic links"), std::string::npos)
      << line;

  fs::remove(tmp / "config.json");
  fs::create_symlink("../blobs/deadbeef", tmp / "config.json");  // a Hub cache blob deleted
  fs::create_symlink("../blobs/cafe", tmp / "model.safetensors.index.json");
  const LocalModelFiles dir = locate_local_model(tmp.path().string());
  ASSERT_TRUE(dir.config.has_value());
  ASSERT_TRUE(dir.index.has_value());
  EXPECT_EQ(*dir.index, tmp / "model.safetensors.index.json");
  std::tie(kind, line) = read_error(*dir.config);
  EXPECT_EQ(kind, ErrorKind::NotFound) << line;
  EXPECT_NE(line.find("config.json: cannot open: No such file or directory"), std::string::npos) << line;
}

// The model path itself a link that cannot be followed: named with what is wrong, exit 9 for a loop and 8
// for a missing target, where a loop was "no such file" (or, from the command line, a Hub id to fetch).
TEST(ModelFiles, AModelPathThatCannotBeFollowedSaysWhy) {
  test::TempDir tmp;
  fs::create_symlink("loop", tmp / "loop");
  fs::create_symlink("gone.safetensors", tmp / "dangling.safetensors");
  for (const auto& [name, kind, says] :
       {std::tuple{"loop", ErrorKind::LocalIO, "cannot open: Too many levels of symbolic links"},
        std::tuple{"dangling.safetensors", ErrorKind::NotFound,
                   "a symbolic link whose target does not exist"},
        std::tuple{"absent", ErrorKind::NotFound, "no such file or directory"}}) {
    try {
      locate_local_model((tmp / name).string());
      ADD_FAILURE() << name << " located";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ma
