// Whether a file a model names stays inside the model's directory once symbolic links are followed, the
// Hugging Face cache's layout included: there every file of a snapshot is a link into the repo's blobs/.
#pragma once
#include <filesystem>

namespace ma {

// True when `path` lies below `dir`, component by component (both already normal or canonical).
bool lies_under(const std::filesystem::path& path, const std::filesystem::path& dir);

// True when `file` resolves inside `dir`, or, for a directory in a Hub cache snapshot
// (<repo>/snapshots/<revision>/...), inside <repo>/blobs/. False when either cannot be resolved.
bool resolves_inside_model(const std::filesystem::path& file, const std::filesystem::path& dir);

}  // namespace ma
