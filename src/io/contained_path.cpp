#include "io/contained_path.h"

#include <algorithm>
#include <system_error>

namespace fs = std::filesystem;

namespace ma {

bool lies_under(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end() && p != path.end();
}

bool resolves_inside_model(const fs::path& file, const fs::path& dir) {
  std::error_code ec;
  const fs::path real_dir = fs::weakly_canonical(dir, ec);
  if (ec) return false;
  const fs::path real = fs::weakly_canonical(file, ec);
  if (ec) return false;
  if (lies_under(real, real_dir)) return true;
  // A snapshot's files are links to ../../blobs/<hash> (huggingface_hub's layout, and ours): the blobs of the
  // snapshot's own repo are the model's too. Files a user links in from elsewhere are not.
  for (fs::path p = real_dir; p.has_relative_path(); p = p.parent_path())
    if (p.filename() == "snapshots") return lies_under(real, p.parent_path() / "blobs");
  return false;
}

}  // namespace ma
