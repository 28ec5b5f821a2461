#include "hub/snapshot_listing.h"

#include <algorithm>

#include "core/error.h"

namespace fs = std::filesystem;

namespace ma {

std::vector<RepoFile> snapshot_listing(const fs::path& dir) {
  // A snapshot is one model's files: far fewer than this, which only a damaged or hostile tree reaches.
  constexpr size_t kMaxSnapshotFiles = 100000;
  std::vector<RepoFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;
    if (out.size() == kMaxSnapshotFiles)
      throw Error(ErrorKind::Limit, dir.string(), "", "more than 100,000 files in one snapshot");
    RepoFile f;
    f.path = it->path().lexically_relative(dir).generic_string();
    const uintmax_t size = it->file_size(fec);
    if (!fec) f.size = size;
    out.push_back(std::move(f));
  }
  if (ec) throw Error(ErrorKind::LocalIO, dir.string(), "", "cannot list the snapshot: " + ec.message());
  std::sort(out.begin(), out.end(), [](const RepoFile& a, const RepoFile& b) { return a.path < b.path; });
  return out;
}

}  // namespace ma
