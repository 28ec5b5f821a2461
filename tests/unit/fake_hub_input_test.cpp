// The fake Hub (tests/hub) refuses what it cannot serve faithfully, and reads a model directory into a repo;
// no nginx is started here (the served protocol: e2e/fake_hub_server_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "fake_hub.h"
#include "fake_hub_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "hf_fake_token_123";

TEST(FakeHubInput, RejectsWhatItCannotServe) {
  TempDir dir;
  FakeHub hub(dir.path() / "hub", kToken);
  FakeFile huge = fake_file("huge.safetensors", "x", true);
  huge.sparse_size = 100ull << 20;  // sparse and over 64 MiB: hashing it is refused
  EXPECT_THROW(hub.add_repo(fake_repo("a/huge", "normal", {huge})), std::runtime_error);
  EXPECT_THROW(hub.add_repo(fake_repo("a/mode", "sideways", {})), std::invalid_argument);
  EXPECT_THROW(hub.add_repo(fake_repo("a/b/c", "normal", {})), std::invalid_argument);
  EXPECT_THROW(hub.add_repo(fake_repo("a/path", "normal", {fake_file("../x", "")})), std::invalid_argument);
  FakeRepo injecting = fake_repo("a/header", "rate_limited", {});
  injecting.limit_headers = {{"Retry-After", "$request_uri"}};  // would be an nginx variable
  EXPECT_THROW(hub.add_repo(injecting), std::invalid_argument);
  hub.add_repo(fake_repo("a/ok", "normal", {fake_file("config.json", "")}));
  EXPECT_THROW(hub.add_repo(fake_repo("a/ok", "normal", {})), std::invalid_argument);
  EXPECT_EQ(hub.etag_of("a/ok", "config.json"),
            "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");  // the empty blob
  EXPECT_EQ(hub.commit_of("a/ok").size(), 40u);
}

TEST(FakeHubInput, RepoFromDirectoryMarksLfsFiles) {
  TempDir dir;
  std::ofstream(dir.path() / "config.json") << "{}";
  std::ofstream(dir.path() / "model.safetensors") << "weights";
  std::ofstream(dir.path() / "tokenizer.json") << std::string((1 << 20) + 1, 'x');
  fs::create_directories(dir.path() / "sub");
  const FakeRepo r = repo_from_directory("org/m", dir.path());
  ASSERT_EQ(r.files.size(), 3u);
  EXPECT_EQ(r.files[0].path, "config.json");
  EXPECT_FALSE(r.files[0].lfs);
  EXPECT_TRUE(r.files[1].lfs);
  EXPECT_EQ(r.files[1].content, "weights");
  EXPECT_TRUE(r.files[2].lfs);
}

}  // namespace
}  // namespace ma::test
