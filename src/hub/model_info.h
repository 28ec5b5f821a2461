// The models API's answer (`/api/models/{id}/revision/{rev}?blobs=true`): the commit a revision points at,
// the files with their sizes and LFS hashes, and the metadata seed 002 reports (author, downloads, likes,
// license, gated).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ma {

struct RepoFile {
  std::string path;
  std::optional<uint64_t> size;
  std::string blob_id;     // git blob SHA-1 (the etag of a non-LFS file)
  std::string lfs_sha256;  // 64 hex for LFS files (the etag the resolve endpoint gives), else empty

  // The hash the listing names the file's bytes by: the LFS SHA-256, else the git blob id (a non-LFS file's
  // etag); empty when the listing gives neither. Unchecked: pass it through checked_etag before use.
  const std::string& listed_hash() const { return lfs_sha256.empty() ? blob_id : lfs_sha256; }
};

// The bytes of `files` as the listing gives them; nullopt when it gives no size for one (the files that are
// sized would pass for the whole).
std::optional<uint64_t> listed_bytes(const std::vector<const RepoFile*>& files);

struct HubModelInfo {
  std::string id;
  std::string commit;  // "sha", validated: 40 lower-case hex
  std::string author;
  std::optional<uint64_t> downloads;
  std::optional<uint64_t> likes;
  std::string license;  // cardData.license, else a "license:..." tag
  std::string gated;    // "false", "auto" or "manual"
  bool is_private = false;
  std::string pipeline_tag;
  std::string library_name;
  std::string last_modified;
  std::vector<RepoFile> files;

  const RepoFile* file(std::string_view path) const;
};

// Throws Error(Malformed) naming `source` for invalid JSON, a missing or non-hex sha (N13/N14), or a file
// name that would leave the repo (Unsafe, N23).
HubModelInfo parse_model_info(std::string json_text, std::string_view source);

}  // namespace ma
