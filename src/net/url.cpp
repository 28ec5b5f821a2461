#include "net/url.h"

#include <memory>

#include "core/error.h"
#include "net/curl_library.h"
#include "net/http_client.h"

namespace ma {
namespace {

struct UrlCleanup {
  void operator()(CURLU* u) const { curl().url_cleanup(u); }
};
using UrlHandle = std::unique_ptr<CURLU, UrlCleanup>;

UrlHandle parse(const std::string& url) {
  UrlHandle u(curl().url());
  if (!u || curl().url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
    throw Error(ErrorKind::Network, redact_url(url), "", "not a valid URL");
  return u;
}

std::string part(CURLU* u, CURLUPart which, unsigned flags = 0) {
  char* value = nullptr;
  if (curl().url_get(u, which, &value, flags) != CURLUE_OK || !value) return {};
  std::string out(value);
  curl().free(value);
  return out;
}

}  // namespace

Origin origin_of(const std::string& url) {
  UrlHandle u = parse(url);
  Origin o;
  o.scheme = part(u.get(), CURLUPART_SCHEME);
  o.host = part(u.get(), CURLUPART_HOST);
  if (o.scheme != "http" && o.scheme != "https")
    throw Error(ErrorKind::Network, redact_url(url), "", "only http and https URLs are followed");
  std::string port = part(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  o.port = port.empty() ? 0 : std::stol(port);
  return o;
}

std::string resolve_url(const std::string& base, const std::string& location) {
  UrlHandle u = parse(base);
  if (curl().url_set(u.get(), CURLUPART_URL, location.c_str(), 0) != CURLUE_OK)
    throw Error(ErrorKind::Network, redact_url(base), "Location", "redirect to an invalid URL");
  return part(u.get(), CURLUPART_URL);
}

}  // namespace ma
