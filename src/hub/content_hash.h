// The hashes the Hub names files by, computed while bytes stream in: SHA-256 for LFS files (their etag) and
// git's blob SHA-1 ("blob <size>\0" + content) for the rest. Nothing enters the cache or an output directory
// unless its bytes hash to the name the Hub gives them: a download, a small file the analysis reads, a file
// already present.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace ma {

class ContentHash {
 public:
  // `etag` chooses the algorithm: 64 hex -> SHA-256, 40 hex -> git blob SHA-1 of a file of `size` bytes.
  ContentHash(std::string_view etag, uint64_t size);
  ~ContentHash();
  ContentHash(const ContentHash&) = delete;
  ContentHash& operator=(const ContentHash&) = delete;

  void update(std::string_view bytes);
  std::string hex_digest();  // lower-case hex; call once
  void reset();              // start again (a server that ignored Range restarts the body)

 private:
  void start();
  struct State;
  std::unique_ptr<State> state_;
  bool git_blob_ = false;
  uint64_t size_ = 0;
};

// The hash of `bytes` in the algorithm `expected` (a 40- or 64-hex name) stands for.
std::string content_hash_of(std::string_view bytes, std::string_view expected);
// The same for a file on disk, read in chunks; nullopt when it cannot be read (the caller fetches it again).
std::optional<std::string> file_content_hash(const std::filesystem::path& path, std::string_view expected);
// Throws Error(Network) "<where>: content hash mismatch: ..." unless `digest` is `expected`.
void require_content_hash(const std::string& where, const std::string& expected, const std::string& digest);

}  // namespace ma
