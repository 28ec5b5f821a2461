// A Hub repository's file list as its model info gives it (hub/model_info.h): paths with their sizes, a size
// left out where the listing gives none. For the unit tests of what is chosen from a listing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hub/model_info.h"

namespace ma::test {

inline std::vector<RepoFile> repo_listing(
    const std::vector<std::pair<std::string, std::optional<uint64_t>>>& files) {
  std::vector<RepoFile> out;
  for (const auto& [path, size] : files) {
    RepoFile f;
    f.path = path;
    f.size = size;
    out.push_back(f);
  }
  return out;
}

}  // namespace ma::test
