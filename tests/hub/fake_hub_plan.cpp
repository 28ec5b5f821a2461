// Planning: everything the fake Hub will say about a repo, computed once in add_repo.
#include "fake_hub_plan.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

#include "fake_hub_hash.h"
#include "fake_hub_text.h"
#include "fake_hub_validate.h"

namespace ma::test::detail {

namespace {

// Hashing the zeros of a "5 GB shard" would take seconds.
constexpr uint64_t kMaxHashedSparseBytes = 64ull << 20;

uint64_t logical_size(const FakeFile& f) {
  return std::max<uint64_t>(f.content.size(), f.sparse_size);
}

std::string planned_etag(const FakeFile& f, uint64_t size) {
  const size_t hex_len = f.lfs ? 64 : 40;
  if (!f.etag.empty()) {
    if (!is_lower_hex(f.etag, hex_len))
      throw std::invalid_argument("FakeHub: etag of " + f.path + " must be " + std::to_string(hex_len) +
                                  " lowercase hex");
    return f.etag;
  }
  if (size > f.content.size() && size > kMaxHashedSparseBytes)
    throw std::runtime_error("FakeHub: " + f.path +
                             " is a sparse file over 64 MiB: give it an etag override");
  return f.lfs ? sha256_hex(f.content, size) : git_blob_sha1(f.content, size);
}

FilePlan plan_file(FakeFile f) {
  validate_file_path(f.path);
  FilePlan p;
  p.size = logical_size(f);
  p.etag = planned_etag(f, p.size);
  if (f.lfs) {
    const std::string pointer = lfs_pointer(p.etag, p.size);
    p.pointer_size = pointer.size();
    p.blob_id = git_blob_sha1(pointer, pointer.size());
  } else {
    p.blob_id = p.etag;
  }
  p.file = std::move(f);
  return p;
}

std::string derived_commit(const std::string& id) {
  const std::string seed = "ma-fake-hub commit of " + id;
  return sha1_hex(seed, seed.size());
}

std::string repo_key(const std::string& id) {
  std::string key = "models--" + id;
  if (size_t slash = key.find('/'); slash != std::string::npos) key.replace(slash, 1, "--");
  return key;
}

}  // namespace

Mode parse_mode(const std::string& name) {
  static const std::pair<const char*, Mode> kModes[] = {
      {"normal", Mode::Normal},       {"gated", Mode::Gated},
      {"private", Mode::Private},     {"rate_limited", Mode::RateLimited},
      {"flaky", Mode::Flaky},         {"ignore_range", Mode::IgnoreRange},
      {"truncated", Mode::Truncated}, {"corrupt", Mode::Corrupt},
      {"slow", Mode::Slow},           {"redirect_loop", Mode::RedirectLoop}};
  for (const auto& [n, m] : kModes)
    if (name == n) return m;
  throw std::invalid_argument("FakeHub: unknown repo mode '" + name + "'");
}

bool is_limited(Mode m) {
  return m == Mode::RateLimited || m == Mode::Flaky;
}

bool has_own_cdn_prefix(Mode m) {
  return m == Mode::IgnoreRange || m == Mode::Truncated || m == Mode::Corrupt || m == Mode::Slow;
}

RepoPlan plan_repo(FakeRepo repo, size_t index) {
  validate_repo_id(repo.id);
  if (!repo.commit.empty() && !is_lower_hex(repo.commit, 40))
    throw std::invalid_argument("FakeHub: commit of " + repo.id + " must be 40 lowercase hex");
  RepoPlan p;
  p.mode = parse_mode(repo.mode);
  p.commit = repo.commit.empty() ? derived_commit(repo.id) : repo.commit;
  p.key = repo_key(repo.id);
  p.index = index;
  std::set<std::string> seen;
  for (FakeFile& f : repo.files) {
    if (!seen.insert(f.path).second) throw std::invalid_argument("FakeHub: duplicate file " + f.path);
    p.files.push_back(plan_file(std::move(f)));
  }
  for (const auto& [name, value] : repo.limit_headers) validate_header(name, value);
  p.limit_headers = std::move(repo.limit_headers);
  p.id = std::move(repo.id);
  p.info_json_fields = std::move(repo.info_json_fields);
  return p;
}

std::string cdn_uri(const RepoPlan& r, const FilePlan& f) {
  return has_own_cdn_prefix(r.mode) ? "/lfs/" + r.key + "/" + f.etag : "/lfs/" + f.etag;
}

}  // namespace ma::test::detail
