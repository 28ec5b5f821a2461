// Hashes the fake Hub serves (OpenSSL EVP: the low-level SHA256_* calls are deprecated in OpenSSL 3).
#include "fake_hub_hash.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>

#include "fake_hub_text.h"

namespace ma::test::detail {

namespace {

// The digest of `prefix`, then `content`, then zeros up to `total` content bytes: a sparse file's logical
// bytes.
std::string digest_hex(const EVP_MD* md, std::string_view prefix, std::string_view content, uint64_t total) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1)
    throw std::runtime_error("FakeHub: EVP init failed");
  EVP_DigestUpdate(ctx.get(), prefix.data(), prefix.size());
  EVP_DigestUpdate(ctx.get(), content.data(), content.size());
  static const std::array<char, 1 << 16> kZeros{};
  for (uint64_t left = total - content.size(); left > 0;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, kZeros.size()));
    EVP_DigestUpdate(ctx.get(), kZeros.data(), n);
    left -= n;
  }
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), out, &len);
  return to_hex(out, len);
}

}  // namespace

std::string sha256_hex(std::string_view content, uint64_t total) {
  return digest_hex(EVP_sha256(), {}, content, total);
}

std::string sha1_hex(std::string_view content, uint64_t total) {
  return digest_hex(EVP_sha1(), {}, content, total);
}

std::string git_blob_sha1(std::string_view content, uint64_t size) {
  std::string header = "blob " + std::to_string(size);
  header.push_back('\0');
  return digest_hex(EVP_sha1(), header, content, size);
}

std::string lfs_pointer(const std::string& sha256, uint64_t size) {
  return "version https://git-lfs.github.com/spec/v1\noid sha256:" + sha256 + "\nsize " +
         std::to_string(size) + "\n";
}

}  // namespace ma::test::detail
