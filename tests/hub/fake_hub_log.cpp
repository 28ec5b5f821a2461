// Parsing the fake Hub's access logs: tab-separated fields, escaped by nginx's escape=default.
#include "fake_hub_log.h"

#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>

#include "fake_hub_io.h"

namespace ma::test::detail {

namespace fs = std::filesystem;

namespace {

// nginx's escape=default writes '"', '\' and bytes outside 0x20..0x7e as \xHH.
std::string unescape_log_field(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 3]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// nginx logs an absent header as "-".
std::string header_field(const std::string& s) {
  return s == "-" ? std::string() : unescape_log_field(s);
}

}  // namespace

std::vector<LogEntry> parse_access_log(const fs::path& p, uint64_t from) {
  std::vector<LogEntry> entries;
  const std::string text = read_whole_file(p);
  std::istringstream lines(from < text.size() ? text.substr(from) : std::string());
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
    if (f.size() != 7) continue;  // a line being written right now
    LogEntry e;
    e.server = f[0];
    e.method = f[1];
    e.uri = unescape_log_field(f[2]);
    e.status = std::atoi(f[3].c_str());
    e.range = header_field(f[4]);
    e.authorization = header_field(f[5]);
    e.bytes_sent = std::strtoull(f[6].c_str(), nullptr, 10);
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace ma::test::detail
