// The files of a cache snapshot as a file list: what another tool (huggingface_hub's snapshot_download) put
// there, for choosing a GGUF model when the Hub's listing is not at hand (offline, no listing of ours).
#pragma once
#include <filesystem>
#include <vector>

#include "hub/model_info.h"

namespace ma {

// Every regular file under `dir` (links to blobs followed, linked folders not), by its path relative to `dir`
// with '/' separators, with its size and no hash; in path order. Empty when `dir` does not exist.
std::vector<RepoFile> snapshot_listing(const std::filesystem::path& dir);

}  // namespace ma
