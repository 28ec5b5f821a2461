#include "core/text.h"

#include <cstdint>
#include <cstdio>

namespace ma {
namespace {

void escape(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no overlongs, no surrogates, at most
// U+10FFFF), or 0.
size_t utf8_length(std::string_view s, size_t i, uint32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t n;
  uint32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF)
    n = 2, min = 0x80, cp = b0 & 0x1Fu;
  else if (b0 >= 0xE0 && b0 <= 0xEF)
    n = 3, min = 0x800, cp = b0 & 0x0Fu;
  else if (b0 >= 0xF0 && b0 <= 0xF4)
    n = 4, min = 0x10000, cp = b0 & 0x07u;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F)
        escape(out, c);
      else
        out += static_cast<char>(c);
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = utf8_length(s, i, cp);
    if (n == 0 || (cp >= 0x80 && cp <= 0x9F)) {  // invalid, or a C1 control such as CSI
      escape(out, c);
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string terminal_safe_lines(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t begin = 0;;) {
    const size_t end = s.find('\n', begin);
    out +=
        terminal_safe(s.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    if (end == std::string_view::npos) return out;
    out += '\n';
    begin = end + 1;
  }
}

bool is_plain_text(std::string_view s) {
  return terminal_safe(s) == s;  // one rule: what terminal_safe would change is not plain text
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string join_with_and(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

std::string first_and_more(const std::vector<std::string>& items, size_t shown) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < shown; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > shown) out += " and " + std::to_string(items.size() - shown) + " more";
  return out;
}

}  // namespace ma
