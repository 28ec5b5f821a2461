// libcurl, loaded when the Hub is first reached rather than linked. Linked, it brings some 30 libraries (TLS,
// Kerberos, LDAP, IDN …) whose loading and relocation cost every command ~4 ms of start-up, local analyses
// included. Only curl's header is used at build time (Debian: libcurl4-openssl-dev); at run time
// libcurl.so.4 (Debian: libcurl4) is opened on first use, and a machine without it still runs everything
// that needs no network.
#pragma once
#include <curl/curl.h>

namespace ma {

// The functions the HTTP client and URL parsing use, with curl's own signatures.
struct CurlLibrary {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_reset) easy_reset = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
  decltype(&::curl_url) url = nullptr;
  decltype(&::curl_url_set) url_set = nullptr;
  decltype(&::curl_url_get) url_get = nullptr;
  decltype(&::curl_url_cleanup) url_cleanup = nullptr;
  decltype(&::curl_free) free = nullptr;
};

// The loaded library, curl_global_init done once; throws Error(Unsupported) naming the library or symbol that
// could not be found.
const CurlLibrary& curl();

}  // namespace ma
