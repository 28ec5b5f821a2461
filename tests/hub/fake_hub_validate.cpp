// Validation of the fake Hub's inputs: ids, paths and the token end up inside nginx.conf, so anything nginx
// would interpret is refused.
#include "fake_hub_validate.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

namespace ma::test::detail {

namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

}  // namespace

void validate_repo_id(const std::string& id) {
  const size_t slash = id.find('/');
  const bool ok = !id.empty() &&
                  id.find('/', slash == std::string::npos ? 0 : slash + 1) == std::string::npos &&
                  slash != 0 && slash + 1 != id.size() &&
                  std::all_of(id.begin(), id.end(), [](char c) { return c == '/' || is_name_char(c); });
  if (!ok) throw std::invalid_argument("FakeHub: bad repo id '" + id + "'");
}

void validate_file_path(const std::string& path) {
  bool ok = !path.empty() && path.front() != '/' && path.back() != '/';
  for (char c : path)
    ok = ok && static_cast<unsigned char>(c) >= 0x20 && c != 0x7f && c != '"' && c != '\\' && c != '$';
  std::istringstream segments(path);
  for (std::string seg; ok && std::getline(segments, seg, '/');)
    ok = !seg.empty() && seg != "." && seg != "..";
  if (!ok) throw std::invalid_argument("FakeHub: unsupported file path '" + path + "'");
}

void validate_token(const std::string& token) {
  bool ok = token.find("\\E") == std::string::npos;
  for (char c : token) ok = ok && c > 0x20 && c != 0x7f && c != '"' && c != '\\';
  if (!ok)
    throw std::invalid_argument("FakeHub: the token must be printable ASCII without quotes or backslashes");
}

void validate_header(const std::string& name, const std::string& value) {
  bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
  });
  for (char c : value) ok = ok && c >= 0x20 && c != 0x7f && c != '$';  // nginx_quote escapes '"' and '\\'
  if (!ok) throw std::invalid_argument("FakeHub: unsupported header '" + name + ": " + value + "'");
}

void validate_config_path(const std::filesystem::path& p) {
  const std::string s = p.string();
  if (s.find('$') != std::string::npos || s.find('"') != std::string::npos)
    throw std::invalid_argument("FakeHub: work_dir must not contain '$' or '\"': " + s);
}

}  // namespace ma::test::detail
