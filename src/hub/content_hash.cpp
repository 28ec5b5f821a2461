#include "hub/content_hash.h"

#include <openssl/evp.h>

#include "core/error.h"

namespace ma {

struct ContentHash::State {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~State() { EVP_MD_CTX_free(ctx); }
};

ContentHash::ContentHash(std::string_view etag, uint64_t size)
    : state_(std::make_unique<State>()), git_blob_(etag.size() == 40), size_(size) {
  if (!state_->ctx) throw Error(ErrorKind::Internal, "openssl", "", "EVP_MD_CTX_new failed");
  start();
}

ContentHash::~ContentHash() = default;

void ContentHash::start() {
  EVP_DigestInit_ex(state_->ctx, git_blob_ ? EVP_sha1() : EVP_sha256(), nullptr);
  if (git_blob_) {
    std::string prefix = "blob " + std::to_string(size_);
    EVP_DigestUpdate(state_->ctx, prefix.data(), prefix.size() + 1);  // with the terminating NUL, as git does
  }
}

void ContentHash::reset() { start(); }

void ContentHash::update(std::string_view bytes) { EVP_DigestUpdate(state_->ctx, bytes.data(), bytes.size()); }

std::string ContentHash::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(state_->ctx, digest, &n);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace ma
