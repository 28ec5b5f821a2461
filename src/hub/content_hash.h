// The hashes the Hub names files by, computed while bytes stream in: SHA-256 for LFS files (their etag) and
// git's blob SHA-1 ("blob <size>\0" + content) for the rest. A download is kept only when its hash is the etag.
#pragma once
#include <cstdint>
#include <memory>
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

}  // namespace ma
