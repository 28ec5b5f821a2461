// Planning: everything the fake Hub will say about a repo (fault mode, commit, per-file sizes, etags and blob
// ids), computed once when the repo is added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fake_hub.h"

namespace ma::test::detail {

enum class Mode {
  Normal,
  Gated,
  Private,
  RateLimited,
  Flaky,
  IgnoreRange,
  Truncated,
  Corrupt,
  Slow,
  RedirectLoop
};

// Throws std::invalid_argument on an unknown mode name.
Mode parse_mode(const std::string& name);
bool is_limited(Mode m);
// These modes alter what the CDN serves, so the repo's blobs get their own URL prefix (and nginx locations).
bool has_own_cdn_prefix(Mode m);

struct FilePlan {
  FakeFile file;
  uint64_t size = 0;          // logical size, as the API and X-Linked-Size report it
  std::string etag;           // bare hex: sha256 (LFS) or git blob sha1
  std::string blob_id;        // git blob sha1 of the file, or of its LFS pointer
  uint64_t pointer_size = 0;  // LFS only
};

struct RepoPlan {
  std::string id, commit, info_json_fields, key;
  std::vector<std::pair<std::string, std::string>> limit_headers;  // on this repo's 429 answers
  Mode mode = Mode::Normal;
  size_t index = 0;  // names this repo's nginx zones
  std::vector<FilePlan> files;
};

// Validates the repo and computes its commit and etags (throws std::invalid_argument or std::runtime_error).
RepoPlan plan_repo(FakeRepo repo, size_t index);

// Where the CDN serves an LFS file: /lfs/{sha256}, or /lfs/{key}/{sha256} for the modes with their own
// prefix.
std::string cdn_uri(const RepoPlan& r, const FilePlan& f);

}  // namespace ma::test::detail
