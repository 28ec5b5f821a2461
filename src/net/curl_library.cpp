#include "net/curl_library.h"

#include <string>

#include "core/error.h"
#include "core/runtime_library.h"

namespace ma {
namespace {

struct LoadedCurl {
  CurlLibrary api;
  std::string missing;  // the library or symbol not found; empty when all loaded
  CURLcode init = CURLE_FAILED_INIT;

  LoadedCurl() {
    RuntimeLibraries libs;
    void* lib = libs.open("libcurl.so.4");
    libs.bind(lib, "curl_global_init", api.global_init);
    libs.bind(lib, "curl_easy_init", api.easy_init);
    libs.bind(lib, "curl_easy_setopt", api.easy_setopt);
    libs.bind(lib, "curl_easy_getinfo", api.easy_getinfo);
    libs.bind(lib, "curl_easy_perform", api.easy_perform);
    libs.bind(lib, "curl_easy_reset", api.easy_reset);
    libs.bind(lib, "curl_easy_cleanup", api.easy_cleanup);
    libs.bind(lib, "curl_easy_strerror", api.easy_strerror);
    libs.bind(lib, "curl_slist_append", api.slist_append);
    libs.bind(lib, "curl_slist_free_all", api.slist_free_all);
    libs.bind(lib, "curl_url", api.url);
    libs.bind(lib, "curl_url_set", api.url_set);
    libs.bind(lib, "curl_url_get", api.url_get);
    libs.bind(lib, "curl_url_cleanup", api.url_cleanup);
    libs.bind(lib, "curl_free", api.free);
    missing = libs.missing();
    if (missing.empty()) init = api.global_init(CURL_GLOBAL_DEFAULT);
  }
};

}  // namespace

const CurlLibrary& curl() {
  static const LoadedCurl loaded;  // C++ makes this first call thread-safe, and curl_global_init runs once
  if (!loaded.missing.empty())
    throw Error(ErrorKind::Unsupported, loaded.missing, "libcurl",
                "the Hub client needs libcurl: apt-get install libcurl4");
  if (loaded.init != CURLE_OK) throw Error(ErrorKind::Internal, "libcurl", "", "curl_global_init failed");
  return loaded.api;
}

}  // namespace ma
