// Building blocks of the fake Hub's nginx.conf text: quoted strings, headers, `return` replies, locations.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ma::test::detail {

using Header = std::pair<std::string, std::string>;

// An nginx config string: double-quoted, with the parser's two escapes. `$` is left alone on purpose
// (variables); inputs are validated so that none of theirs reaches the config.
std::string nginx_quote(std::string_view s);

std::string add_header(const std::string& name, const std::string& value);
std::string quoted_etag(const std::string& hex);
std::string error_body(const std::string& message);

// A `return`: a redirect (3xx; `text` is the Location) or a status with a JSON body, plus its headers.
struct Reply {
  int status = 0;
  std::string text;
  std::vector<Header> headers;
};

std::string reply_statements(const Reply& r);

std::string location(const std::string& match, const std::vector<std::string>& statements);
std::string exact(const std::string& uri);
std::string prefix(const std::string& uri);

}  // namespace ma::test::detail
