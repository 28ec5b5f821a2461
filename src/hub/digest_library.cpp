#include "hub/digest_library.h"

#include <string>

#include "core/error.h"
#include "core/runtime_library.h"

namespace ma {
namespace {

struct LoadedDigest {
  DigestLibrary api;
  std::string missing;  // the library or symbol not found; empty when all loaded

  LoadedDigest() {
    RuntimeLibraries libs;
    void* lib = libs.open("libcrypto.so.3");
    libs.bind(lib, "EVP_MD_CTX_new", api.ctx_new);
    libs.bind(lib, "EVP_MD_CTX_free", api.ctx_free);
    libs.bind(lib, "EVP_DigestInit_ex", api.init);
    libs.bind(lib, "EVP_DigestUpdate", api.update);
    libs.bind(lib, "EVP_DigestFinal_ex", api.final);
    libs.bind(lib, "EVP_sha1", api.sha1);
    libs.bind(lib, "EVP_sha256", api.sha256);
    missing = libs.missing();
  }
};

}  // namespace

const DigestLibrary& digests() {
  static const LoadedDigest loaded;
  if (!loaded.missing.empty())
    throw Error(ErrorKind::Unsupported, loaded.missing, "libcrypto",
                "checking the Hub's file hashes needs OpenSSL's libcrypto: apt-get install libssl3");
  return loaded.api;
}

}  // namespace ma
