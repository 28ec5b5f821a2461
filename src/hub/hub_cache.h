// The Hugging Face cache layout, shared with Python tools (anchors-reliability §5.1):
//   {root}/models--org--name/blobs/{etag}            file contents, named by git sha1 or LFS sha256
//   {root}/models--org--name/snapshots/{commit}/{path} relative symlink -> ../../blobs/{etag}
//   {root}/models--org--name/refs/{revision}         the commit a branch or tag pointed at
// Every write goes to a process-unique temp file and is renamed into place, so a killed run or two runs at
// once leave only complete entries (C1, C2). Everything read back is checked: refs hold 40 hex (C9), etags
// and commits from a server are hex before they become file names (N14), snapshot links resolve inside
// blobs/ (C7). Beside the layout, under modelanalyzer/ (ignored by huggingface_hub's scanner): weight-file
// headers keyed by etag (and, for listings without hashes, the etag of each path at a commit), the model info
// of each commit, so a second analysis needs no request for them, and
// a stamp for each blob whose hash was checked.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ma {

class HubCache {
 public:
  HubCache(std::filesystem::path root, std::string_view repo_id);

  const std::filesystem::path& repo_dir() const { return repo_; }
  std::filesystem::path snapshot_dir(const std::string& commit) const { return repo_ / "snapshots" / commit; }

  // The commit refs/{revision} names; nullopt when absent. Throws Error(LocalIO) for a corrupt ref.
  std::optional<std::string> read_ref(const std::string& revision) const;
  // The commit `revision` names here: itself when it is a commit hash, else what refs/{revision} holds;
  // nullopt when the cache does not know the revision (never downloaded or listed). Throws as read_ref.
  std::optional<std::string> commit_of(const std::string& revision) const;
  // Writes nothing when the ref already names `commit`; replaces a corrupt one.
  void write_ref(const std::string& revision, const std::string& commit) const;

  // The cached copy of `path` at `commit`, when present and sound: a regular file reached through a link into
  // this repo's blobs/ (or a plain file placed there by a no-symlink cache). Throws Error(Unsafe) for a link
  // that leads elsewhere; nullopt when absent or dangling (the caller fetches it again).
  std::optional<std::filesystem::path> snapshot_file(const std::string& commit,
                                                     const std::string& path) const;

  // huggingface_hub's rule for a file whose blob is already there (another commit's download, a Python
  // tool's): blobs/{etag}, a regular file that intact() accepts (of `size` when given), is linked from
  // snapshots/{commit}/{path} instead of fetched again. Returns the snapshot path, or nullopt when there is
  // no such blob (or a damaged one: the caller fetches it). Throws Error(LocalIO) when the link cannot be
  // made (a read-only cache).
  std::optional<std::filesystem::path> link_blob(const std::string& etag, const std::string& commit,
                                                 const std::string& path,
                                                 std::optional<uint64_t> size = std::nullopt) const;
  // The etag a snapshot entry names: the blob its link points at (snapshots/{commit}/{path} ->
  // ../../blobs/{etag}). nullopt for a plain file, a missing entry or a link to something else. What a
  // listing without hashes leaves to check a cached file against.
  std::optional<std::string> snapshot_etag(const std::string& commit, const std::string& path) const;

  // A process-unique temp name for a download of `etag` (blobs/{etag}.{pid}-{n}.incomplete).
  std::filesystem::path temp_blob(const std::string& etag) const;
  // Moves a complete temp file to blobs/{etag} (an existing blob wins: same etag, same bytes) and links
  // snapshots/{commit}/{path} to it; returns the snapshot path.
  std::filesystem::path commit_blob(const std::filesystem::path& temp, const std::string& etag,
                                    const std::string& commit, const std::string& path) const;
  std::filesystem::path store_blob(std::string_view content, const std::string& etag,
                                   const std::string& commit, const std::string& path) const;

  // Removes blobs/{etag}.{pid}-{n}.incomplete files whose writer is dead (hub/stale_temp.h).
  void sweep_stale_temp_blobs() const;

  // Hashing a multi-gigabyte blob on every run is what users complain about, so a blob found right is
  // stamped (modelanalyzer/verified/{etag}: size, mtime and inode of the file) and trusted while the file
  // keeps that stamp; a rewritten or replaced file no longer matches and is hashed again. Stamping is best
  // effort (a read-only cache is hashed each time).
  bool verified(const std::string& etag, const std::filesystem::path& file) const;
  void mark_verified(const std::string& etag, const std::filesystem::path& file) const;
  // A cached file that is `etag`'s bytes: of `size` when given, stamped, or hashed right (then stamped). A
  // damaged one (cut short by a crash, rewritten by another tool) is false: the caller fetches it again.
  bool intact(const std::string& etag, const std::filesystem::path& file,
              std::optional<uint64_t> size = std::nullopt) const;

  std::optional<std::string> read_header(const std::string& etag) const;
  void write_header(const std::string& etag, std::string_view prefix) const;
  // A listing without LFS hashes or sizes (a mirror's, or an API answer without blobs=true) names no header
  // key, so the etag and size a header read found are remembered per commit and path
  // (modelanalyzer/keys/{commit}/{sha256 of the path}): --offline finds the header again. nullopt when
  // absent or malformed.
  struct HeaderKey {
    std::string etag;  // 64 hex
    uint64_t file_size = 0;
  };
  std::optional<HeaderKey> read_header_key(const std::string& commit, const std::string& path) const;
  void write_header_key(const std::string& commit, const std::string& path, const HeaderKey& key) const;
  std::optional<std::string> read_info(const std::string& commit) const;
  // Writes nothing when the cached copy is already this text (a read-only cache that holds it is fine).
  void write_info(const std::string& commit, std::string_view json) const;

 private:
  // Links snapshots/{commit}/{path} to `blob` (relative, as huggingface_hub does); returns the link.
  std::filesystem::path link_snapshot(const std::filesystem::path& blob, const std::string& commit,
                                      const std::string& path) const;

  std::filesystem::path repo_;
};

// Server-supplied names that become file names: an etag is 40 or 64 lower-case hex once W/ and quotes are
// stripped; a commit 40 hex. Throw Error(Network) "invalid etag/commit from server" otherwise (N14).
std::string checked_etag(std::string_view raw, std::string_view source);
std::string checked_commit(std::string_view raw, std::string_view source);
// The etag as a content hash (W/ and quotes stripped), or nullopt when it is not one: a mirror or CDN
// (nginx's "5f2b1c-49e20") names its bytes its own way. For a served etag that is only compared with the
// listing's hash, which decides: only a well-formed one that differs means the file changed.
std::optional<std::string> content_etag(std::string_view raw);

}  // namespace ma
