#include "hub/content_hash.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "core/error.h"
#include "hub/digest_library.h"

namespace ma {

struct ContentHash::State {
  const DigestLibrary& evp = digests();
  EVP_MD_CTX* ctx = evp.ctx_new();
  ~State() { evp.ctx_free(ctx); }
};

ContentHash::ContentHash(std::string_view etag, uint64_t size)
    : state_(std::make_unique<State>()), git_blob_(etag.size() == 40), size_(size) {
  if (!state_->ctx) throw Error(ErrorKind::Internal, "openssl", "", "EVP_MD_CTX_new failed");
  start();
}

ContentHash::~ContentHash() = default;

void ContentHash::start() {
  const DigestLibrary& evp = state_->evp;
  evp.init(state_->ctx, git_blob_ ? evp.sha1() : evp.sha256(), nullptr);
  if (git_blob_) {
    std::string prefix = "blob " + std::to_string(size_);
    evp.update(state_->ctx, prefix.data(), prefix.size() + 1);  // with the terminating NUL, as git does
  }
}

void ContentHash::reset() {
  start();
}

void ContentHash::update(std::string_view bytes) {
  state_->evp.update(state_->ctx, bytes.data(), bytes.size());
}

std::string ContentHash::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  state_->evp.final(state_->ctx, digest, &n);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

std::string content_hash_of(std::string_view bytes, std::string_view expected) {
  ContentHash hash(expected, bytes.size());
  hash.update(bytes);
  return hash.hex_digest();
}

std::optional<std::string> file_content_hash(const std::filesystem::path& path, std::string_view expected) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> digest;
  if (::fstat(fd, &st) == 0) {
    ContentHash hash(expected, static_cast<uint64_t>(st.st_size));
    // read() into one buffer, no larger than the file (fresh memory is slow to touch on this kind of VM).
    std::vector<char> buffer(std::clamp<size_t>(static_cast<size_t>(st.st_size), 1, 4u << 20));
    ssize_t n = 0;
    while ((n = ::read(fd, buffer.data(), buffer.size())) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) hash.update(std::string_view(buffer.data(), static_cast<size_t>(n)));
    if (n == 0) digest = hash.hex_digest();
  }
  ::close(fd);
  return digest;
}

void require_content_hash(const std::string& where, const std::string& expected, const std::string& digest) {
  if (digest != expected)
    throw Error(ErrorKind::Network, where, "",
                "content hash mismatch: the bytes hash to " + digest + ", not its etag " + expected +
                    " (corrupted on the way or tampered with); nothing was kept");
}

}  // namespace ma
