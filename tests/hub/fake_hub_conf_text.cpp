// Building blocks of the fake Hub's nginx.conf text.
#include "fake_hub_conf_text.h"

#include "fake_hub_text.h"

namespace ma::test::detail {

std::string nginx_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string add_header(const std::string& name, const std::string& value) {
  return "add_header " + name + " " + nginx_quote(value) + " always;";
}

std::string quoted_etag(const std::string& hex) {
  return "\"" + hex + "\"";
}

std::string error_body(const std::string& message) {
  return "{\"error\":" + json_string(message) + "}";
}

std::string reply_statements(const Reply& r) {
  std::string s;
  for (const auto& [name, value] : r.headers) s += add_header(name, value) + " ";
  return s + "return " + std::to_string(r.status) + " " + nginx_quote(r.text) + ";";
}

std::string location(const std::string& match, const std::vector<std::string>& statements) {
  return "    location " + match + " {\n      " + join(statements, "\n      ") + "\n    }\n";
}

std::string exact(const std::string& uri) {
  return "= " + nginx_quote(uri);
}
std::string prefix(const std::string& uri) {
  return "^~ " + nginx_quote(uri);
}

}  // namespace ma::test::detail
