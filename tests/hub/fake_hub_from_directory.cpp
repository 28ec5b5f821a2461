// repo_from_directory: a FakeRepo read from a local directory, its weight files and big files marked LFS.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "fake_hub.h"
#include "fake_hub_io.h"

namespace ma::test {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kLfsThresholdBytes = 1ull << 20;  // bigger files are LFS, as on the Hub

bool has_suffix(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_lfs_by_name(const std::string& name) {
  for (const char* ext : {".safetensors", ".bin", ".pt", ".gguf", ".onnx"})
    if (has_suffix(name, ext)) return true;
  return false;
}

}  // namespace

FakeRepo repo_from_directory(const std::string& id, const std::filesystem::path& dir) {
  FakeRepo repo;
  repo.id = id;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    FakeFile f;
    f.path = p.filename().string();
    f.content = detail::read_whole_file(p);
    f.lfs = is_lfs_by_name(f.path) || f.content.size() > kLfsThresholdBytes;
    repo.files.push_back(std::move(f));
  }
  return repo;
}

}  // namespace ma::test
