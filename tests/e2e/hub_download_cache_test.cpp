// `modelanalyzer download` on a cache another tool filled, end to end, without a Hub: offline (spelt as
// huggingface_hub accepts it), with the Hub unreachable, and with HF_HOME given as `~/...` the way a systemd
// unit or an .env file passes it. The snapshot is written by hand in huggingface_hub's layout (refs/main,
// blobs/{etag}, snapshots/{commit}/{path} -> ../../blobs/{etag}) with nothing of ours beside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_test_support.h"
#include "fake_hub_hash.h"

namespace fs = std::filesystem;

namespace ma::test {
// Named, not anonymous: unity builds merge this file with the other end-to-end Hub tests.
namespace hub_download_cache_e2e {

const std::string kCommit = "0123456789abcdef0123456789abcdef01234567";

// org/m's snapshot of config.json and notes.txt under `cache` (the hub folder), as huggingface_hub writes it;
// returns the snapshot folder.
fs::path python_written_snapshot(const fs::path& cache) {
  const fs::path repo = cache / "models--org--m";
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "blobs");
  write_file(repo / "refs" / "main", kCommit);
  const fs::path snapshot = repo / "snapshots" / kCommit;
  fs::create_directories(snapshot);
  for (const std::string name : {"config.json", "notes.txt"}) {
    const std::string content = name == "config.json" ? "{\"model_type\":\"llama\"}" : "hello\n";
    const std::string etag = detail::git_blob_sha1(content, content.size());
    write_file(repo / "blobs" / etag, content);
    fs::create_symlink(fs::path("../../blobs") / etag, snapshot / name);
  }
  return snapshot;
}

// HOME, the cache and a working folder under one temp folder; no Hub (port 9: nothing listens).
std::string no_hub_env(const TempDir& dir) {
  return "-u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_HOME -u HF_HUB_CACHE -u HF_TOKEN_PATH -u "
         "HF_HUB_OFFLINE "
         "-u TRANSFORMERS_OFFLINE -u XDG_CACHE_HOME HF_ENDPOINT=http://127.0.0.1:9 HOME=" +
         quoted(dir / "home");
}

// Item 7 and 9: HF_HUB_OFFLINE=True (huggingface_hub's _is_true is case-insensitive) answers from the
// snapshot as it is, and prints it for `cd "$(modelanalyzer download org/m)"`.
TEST(HubDownloadCache, OfflineAnswersFromASnapshotPythonWrote) {
  TempDir dir;
  const fs::path snapshot = python_written_snapshot(dir / "hub");
  const CommandResult r = run_cli_env(
      no_hub_env(dir) + " HF_HUB_CACHE=" + quoted(dir / "hub") + " HF_HUB_OFFLINE=True", "download org/m");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, snapshot.string() + "\n") << r.err;
  const CommandResult none =
      run_cli_env(no_hub_env(dir) + " HF_HUB_CACHE=" + quoted(dir / "hub") + " HF_HUB_OFFLINE=yes",
                  "download org/m --include '*.gguf'");
  EXPECT_EQ(none.exit_code, 8) << none.err;
}

// Item 7: with the Hub unreachable (README, Offline) the cached snapshot answers.
TEST(HubDownloadCache, AnUnreachableHubFallsBackToTheCachedSnapshot) {
  TempDir dir;
  const fs::path snapshot = python_written_snapshot(dir / "hub");
  const CommandResult r =
      run_cli_env(no_hub_env(dir) + " HF_HUB_CACHE=" + quoted(dir / "hub"), "download org/m");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, snapshot.string() + "\n") << r.err;
  const CommandResult other =
      run_cli_env(no_hub_env(dir) + " HF_HUB_CACHE=" + quoted(dir / "hub"), "download org/other");
  EXPECT_EQ(other.exit_code, 6) << "the network's failure, the cache lacking the repo\n" << other.err;
}

// Item 9: HF_HOME='~/hf' is $HOME/hf, not a folder named `~` under the working directory.
TEST(HubDownloadCache, TildeInHfHomeIsTheHomeFolder) {
  TempDir dir;
  const fs::path snapshot = python_written_snapshot(dir / "home" / "hf" / "hub");
  fs::create_directories(dir / "work");
  const CommandResult r = run_shell("cd " + quoted(dir / "work") + " && env " + no_hub_env(dir) +
                                    " HF_HOME='~/hf' HF_HUB_OFFLINE=1 " + cli_binary() + " download org/m");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, snapshot.string() + "\n") << r.err;
  EXPECT_FALSE(fs::exists(dir / "work" / "~"));
}

}  // namespace hub_download_cache_e2e
}  // namespace ma::test
