// `modelanalyzer download`: a whole repo, or the files matching --include globs, into the shared cache or a
// directory (seed 004's download.py). Files download in parallel; a connection lost mid-file resumes with a
// Range request in the same run (a server that then answers 200 restarts the file, N8/N9); every file is
// checked against its size and its etag (SHA-256 for LFS, git blob SHA-1 otherwise) before it is moved into
// place, so an interrupted or corrupted download never leaves a file at its final path (N12, C1, C14). A
// blob already in the cache is linked, not fetched again. Offline, or with the Hub unreachable (then with a
// warning), the cached snapshot of the revision answers: checked against our file list of it, or as it is
// when another tool wrote it.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hub/hub_settings.h"
#include "hub/model_info.h"
#include "hub/repo_ref.h"

namespace ma {

struct DownloadProgress {
  uint64_t files_total = 0, files_done = 0;
  uint64_t bytes_total = 0, bytes_done = 0;
};

struct DownloadOptions {
  std::vector<std::string> include;  // shell globs on repo paths; empty = everything
  std::vector<std::string> exclude;
  // Else the cache snapshot. One the run creates is removed again when it fails leaving it empty.
  std::optional<std::filesystem::path> out_dir;
  unsigned parallel_files = 8;
  const std::atomic<bool>* cancel = nullptr;  // set by a signal handler: stop, remove temp files
  // The revision's file list, when the caller has just fetched it (to choose files by a GGUF selector): the
  // download lists from it rather than asking the Hub a second time. Its commit must be the revision's.
  const HubModelInfo* listed = nullptr;
  std::function<void(const DownloadProgress&)> progress;  // called from worker threads, serialised
};

struct DownloadResult {
  std::filesystem::path root;  // where the files are
  std::string commit;
  uint64_t files_downloaded = 0, files_present = 0, bytes_downloaded = 0;
  uint64_t resumed = 0;  // transfers continued with a Range request after a lost connection
  // For the caller to show (nothing below the CLI prints): a cache that could not be written, the Hub not
  // reached and the cached snapshot used instead; a snapshot answered as it is (no file list of ours).
  std::vector<std::string> warnings;
  std::vector<std::string> notes;
};

DownloadResult download_repo(const RepoRef& ref, const HubSettings& settings, const DownloadOptions& options);

}  // namespace ma
