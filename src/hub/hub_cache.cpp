#include "hub/hub_cache.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <system_error>

#include "core/error.h"
#include "hub/content_hash.h"
#include "hub/repo_ref.h"
#include "hub/response_headers.h"
#include "hub/stale_temp.h"
#include "io/atomic_file.h"
#include "io/contained_path.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

bool lower_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return !s.empty();
}

void make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorKind::LocalIO, dir.string(), "", "cache not writable: " + ec.message());
}

// Atomically places a symlink (or replaces a stale one): created under a unique name, then renamed.
void place_link(const fs::path& target, const fs::path& link) {
  make_dirs(link.parent_path());
  static std::atomic<unsigned> serial{0};
  fs::path temp = link;
  temp += "." + std::to_string(getpid()) + "-" + std::to_string(serial++) + ".link";
  std::error_code ec;
  fs::create_symlink(target, temp, ec);
  if (!ec) fs::rename(temp, link, ec);
  if (ec) {
    std::error_code ignored;  // the first error is the one to tell: removing the temp link must not reset it
    fs::remove(temp, ignored);
    throw Error(ErrorKind::LocalIO, link.string(), "", "cannot link the cached file: " + ec.message());
  }
}

// What identifies the bytes of a file without reading them: size, modification time and inode.
std::optional<std::string> stamp_of(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  return std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + " " + std::to_string(st.st_dev) + ":" +
         std::to_string(st.st_ino);
}

bool is_etag(std::string_view s) {
  return (s.size() == 40 || s.size() == 64) && lower_hex(s);
}

}  // namespace

std::optional<std::string> content_etag(std::string_view raw) {
  std::string_view e = raw;
  if (e.rfind("W/", 0) == 0) e.remove_prefix(2);
  if (e.size() >= 2 && e.front() == '"' && e.back() == '"') e = e.substr(1, e.size() - 2);
  if (!is_etag(e)) return std::nullopt;
  return std::string(e);
}

std::string checked_etag(std::string_view raw, std::string_view source) {
  std::optional<std::string> e = content_etag(raw);
  if (!e)
    throw Error(ErrorKind::Network, std::string(source), "ETag",
                "invalid etag from server (expected 40 or 64 hex)");
  return std::move(*e);
}

std::string checked_commit(std::string_view raw, std::string_view source) {
  if (!is_commit_hash(raw))
    throw Error(ErrorKind::Network, std::string(source), "X-Repo-Commit",
                "invalid commit from server (expected 40 hex)");
  return std::string(raw);
}

HubCache::HubCache(fs::path root, std::string_view repo_id)
    : repo_(std::move(root) / repo_folder_name(repo_id)) {}

std::optional<std::string> HubCache::read_ref(const std::string& revision) const {
  fs::path ref = repo_ / "refs" / revision;
  std::error_code ec;
  if (!fs::exists(ref, ec)) return std::nullopt;
  if (!fs::is_regular_file(ref, ec) || fs::file_size(ref, ec) > 64)
    throw Error(ErrorKind::LocalIO, ref.string(), "", "corrupt ref: not a small regular file");
  std::string commit = read_small_file(ref, 64);
  while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r' || commit.back() == ' '))
    commit.pop_back();
  if (!is_commit_hash(commit))
    throw Error(ErrorKind::LocalIO, ref.string(), "", "corrupt ref: not a 40-hex commit");
  return commit;
}

std::optional<std::string> HubCache::commit_of(const std::string& revision) const {
  if (is_commit_hash(revision)) return revision;
  return read_ref(revision);
}

void HubCache::write_ref(const std::string& revision, const std::string& commit) const {
  fs::path ref = repo_ / "refs" / revision;
  std::optional<std::string> current;
  try {
    current = read_ref(revision);
  } catch (const Error&) {
    // A corrupt ref (cut short, edited) is what this write replaces.
  }
  if (current == commit) return;  // nothing to write: a read-only cache holding it is fine
  make_dirs(ref.parent_path());
  write_file_atomically(ref, commit);
}

std::optional<fs::path> HubCache::snapshot_file(const std::string& commit, const std::string& path) const {
  fs::path p = snapshot_dir(commit) / path;
  std::error_code ec;
  auto link_status = fs::symlink_status(p, ec);
  if (ec || !fs::exists(link_status)) return std::nullopt;
  if (fs::is_symlink(link_status)) {
    // The link must land in this repo's blobs/ whatever it says (a planted link to ~/.ssh is refused):
    // checked on its text first (a dangling link cannot be resolved), then on the real path it reaches.
    fs::path target = fs::read_symlink(p, ec);
    if (target.is_relative()) target = p.parent_path() / target;
    if (!lies_under(target.lexically_normal(), (repo_ / "blobs").lexically_normal()))
      throw Error(ErrorKind::Unsafe, p.string(), "", "cache entry resolves outside blobs/");
    if (!fs::exists(target, ec)) return std::nullopt;  // dangling: the blob was deleted, fetch it again
    if (!lies_under(fs::canonical(target, ec), fs::canonical(repo_ / "blobs", ec)))
      throw Error(ErrorKind::Unsafe, p.string(), "", "cache entry resolves outside blobs/");
    if (!fs::is_regular_file(target, ec))
      throw Error(ErrorKind::Unsafe, p.string(), "", "cache entry is not a regular file");
    return p;
  }
  if (!fs::is_regular_file(link_status))
    throw Error(ErrorKind::Unsafe, p.string(), "", "cache entry is not a regular file");
  return p;
}

fs::path HubCache::temp_blob(const std::string& etag) const {
  static std::atomic<unsigned> serial{0};
  make_dirs(repo_ / "blobs");
  return repo_ / "blobs" /
         (etag + "." + std::to_string(getpid()) + "-" + std::to_string(serial++) + ".incomplete");
}

fs::path HubCache::commit_blob(const fs::path& temp, const std::string& etag, const std::string& commit,
                               const std::string& path) const {
  fs::path blob = repo_ / "blobs" / etag;
  std::error_code ec;
  fs::rename(temp, blob, ec);  // same etag, same bytes: replacing a concurrent writer's blob is harmless
  if (ec) {
    std::error_code ignored;  // the first error is the one to tell: removing the temp must not reset it
    fs::remove(temp, ignored);
    throw Error(ErrorKind::LocalIO, blob.string(), "",
                "cannot move the download into the cache: " + ec.message());
  }
  return link_snapshot(blob, commit, path);
}

fs::path HubCache::link_snapshot(const fs::path& blob, const std::string& commit,
                                 const std::string& path) const {
  fs::path link = snapshot_dir(commit) / path;
  // Relative, as huggingface_hub makes them: the cache can be moved as a whole.
  std::error_code ec;
  fs::path target = fs::relative(blob, link.parent_path(), ec);
  if (ec) target = blob;
  place_link(target, link);
  return link;
}

std::optional<fs::path> HubCache::link_blob(const std::string& etag, const std::string& commit,
                                            const std::string& path, std::optional<uint64_t> size) const {
  if (!is_etag(etag)) return std::nullopt;  // a listing's hash that is not hex names no file
  const fs::path blob = repo_ / "blobs" / etag;
  std::error_code ec;
  // A regular file itself: a link planted in blobs/ is not followed out of the cache.
  if (!fs::is_regular_file(fs::symlink_status(blob, ec)) || !intact(etag, blob, size)) return std::nullopt;
  return link_snapshot(blob, commit, path);
}

std::optional<std::string> HubCache::snapshot_etag(const std::string& commit, const std::string& path) const {
  const fs::path p = snapshot_dir(commit) / path;
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(p, ec))) return std::nullopt;
  const fs::path target = fs::read_symlink(p, ec);
  if (ec) return std::nullopt;
  const fs::path resolved = (target.is_relative() ? p.parent_path() / target : target).lexically_normal();
  if (resolved.parent_path() != (repo_ / "blobs").lexically_normal()) return std::nullopt;
  std::string name = resolved.filename().string();
  if (!is_etag(name)) return std::nullopt;
  return name;
}

fs::path HubCache::store_blob(std::string_view content, const std::string& etag, const std::string& commit,
                              const std::string& path) const {
  fs::path temp = temp_blob(etag);
  FILE* f = std::fopen(temp.c_str(), "wbx");
  if (!f) throw Error(ErrorKind::LocalIO, temp.string(), "", "cache not writable");
  // Locked until it is in place, as download's temp files are: a concurrent sweep in another PID namespace
  // tells it from a dead run's by the lock (stale_temp.h). Best effort where flock is unsupported.
  (void)::flock(::fileno(f), LOCK_EX | LOCK_NB);
  bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  // Flushed to disk before it is renamed into blobs/: Python tools read these files without checking them.
  ok = ok && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  if (!ok) {
    std::error_code ec;
    fs::remove(temp, ec);
    std::fclose(f);
    throw Error(ErrorKind::LocalIO, temp.string(), "", "write failed (disk full?)");
  }
  fs::path link;
  try {
    link = commit_blob(temp, etag, commit, path);
  } catch (...) {
    std::fclose(f);
    throw;
  }
  std::fclose(f);  // flushed and synced above: only the lock goes
  return link;
}

void HubCache::sweep_stale_temp_blobs() const {
  sweep_stale_incomplete(repo_ / "blobs", is_etag);
}

bool HubCache::intact(const std::string& etag, const fs::path& file, std::optional<uint64_t> size) const {
  // The etag names a stamp file below: a listing's hash that is not hex ("../../x") names none.
  if (!is_etag(etag)) return false;
  std::error_code ec;
  if (size && fs::file_size(file, ec) != *size) return false;
  if (verified(etag, file)) return true;
  if (file_content_hash(file, etag) != etag) return false;
  mark_verified(etag, file);
  return true;
}

bool HubCache::verified(const std::string& etag, const fs::path& file) const {
  if (!is_etag(etag)) return false;
  const fs::path p = repo_ / "modelanalyzer" / "verified" / etag;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec) || fs::file_size(p, ec) > 256) return false;  // absent or not ours: hash
  const auto stamp = stamp_of(file);
  return stamp && read_small_file(p, 256) == *stamp;
}

void HubCache::mark_verified(const std::string& etag, const fs::path& file) const {
  const auto stamp = stamp_of(file);
  if (!stamp || !is_etag(etag)) return;
  try {
    fs::path dir = repo_ / "modelanalyzer" / "verified";
    make_dirs(dir);
    // No fsync: a stamp lost or cut short by a crash only fails to match, and the file is hashed again.
    write_file_atomically(dir / etag, *stamp, Durability::Checked);
  } catch (const Error&) {
    // Only a saving: a read-only cache is hashed again next time, and the download still succeeds.
  }
}

std::optional<std::string> HubCache::read_header(const std::string& etag) const {
  fs::path p = repo_ / "modelanalyzer" / "headers" / etag;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  return read_small_file(p, 200'000'000);
}

void HubCache::write_header(const std::string& etag, std::string_view prefix) const {
  fs::path dir = repo_ / "modelanalyzer" / "headers";
  make_dirs(dir);
  // Not flushed to disk: a header cut short by a power loss fails its own length check when read back and is
  // fetched again (read_header's callers), and flushing each of a 163-shard repo's headers costs 0.5 s.
  write_file_atomically(dir / etag, prefix, Durability::Checked);
}

namespace {
// A repo path as one file name: its SHA-256 (paths hold slashes and may exceed a name's 255 bytes).
std::string path_key(const std::string& path) {
  return content_hash_of(path, std::string(64, '0'));  // 64 hex selects SHA-256
}
}  // namespace

std::optional<HubCache::HeaderKey> HubCache::read_header_key(const std::string& commit,
                                                             const std::string& path) const {
  const fs::path p = repo_ / "modelanalyzer" / "keys" / commit / path_key(path);
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  const std::string text = read_small_file(p, 128);  // "<64 hex> <decimal size>"
  HeaderKey key;
  key.etag = text.substr(0, 64);
  if (text.size() < 66 || text[64] != ' ' ||
      key.etag.find_first_not_of("0123456789abcdef") != std::string::npos)
    return std::nullopt;
  const std::optional<uint64_t> size = parse_byte_count(std::string_view(text).substr(65));
  if (!size) return std::nullopt;
  key.file_size = *size;
  return key;
}

void HubCache::write_header_key(const std::string& commit, const std::string& path,
                                const HeaderKey& key) const {
  const fs::path dir = repo_ / "modelanalyzer" / "keys" / commit;
  make_dirs(dir);
  write_file_atomically(dir / path_key(path), key.etag + " " + std::to_string(key.file_size),
                        Durability::Checked);
}

std::optional<std::string> HubCache::read_info(const std::string& commit) const {
  fs::path p = repo_ / "modelanalyzer" / "info" / (commit + ".json");
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  return read_small_file(p, 64u << 20);
}

void HubCache::write_info(const std::string& commit, std::string_view json) const {
  if (read_info(commit) == json) return;  // unchanged: no write, no flush
  fs::path dir = repo_ / "modelanalyzer" / "info";
  make_dirs(dir);
  write_file_atomically(dir / (commit + ".json"), json);
}

}  // namespace ma
