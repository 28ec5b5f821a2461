// OpenSSL's digests (libcrypto), loaded when a Hub file's hash is first checked rather than linked: linked,
// libcrypto costs every command ~1.2 ms of start-up for a feature only downloads use. Only OpenSSL's header
// is used at build time (Debian: libssl-dev); libcrypto.so.3 (Debian: libssl3) is opened on first use.
#pragma once
#include <openssl/evp.h>

namespace ma {

// The EVP functions ContentHash uses, with OpenSSL's own signatures.
struct DigestLibrary {
  decltype(&::EVP_MD_CTX_new) ctx_new = nullptr;
  decltype(&::EVP_MD_CTX_free) ctx_free = nullptr;
  decltype(&::EVP_DigestInit_ex) init = nullptr;
  decltype(&::EVP_DigestUpdate) update = nullptr;
  decltype(&::EVP_DigestFinal_ex) final = nullptr;
  decltype(&::EVP_sha1) sha1 = nullptr;
  decltype(&::EVP_sha256) sha256 = nullptr;
};

// The loaded library; throws Error(Unsupported) naming the library or symbol that could not be found.
const DigestLibrary& digests();

}  // namespace ma
