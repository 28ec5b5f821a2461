// URL pieces the Hub client's redirect policy needs, parsed by libcurl's URL API (the same parser that
// connects, so what we check is what we fetch).
#pragma once
#include <string>
#include <string_view>

namespace ma {

struct Origin {
  std::string scheme, host;
  long port = 0;  // explicit or the scheme's default
  bool operator==(const Origin&) const = default;
};

// Throws Error(Network) naming the redacted URL when it does not parse or is not http(s).
Origin origin_of(const std::string& url);

// A Location header resolved against the URL it came from (absolute, or relative like "/org/name/...").
std::string resolve_url(const std::string& base, const std::string& location);

}  // namespace ma
