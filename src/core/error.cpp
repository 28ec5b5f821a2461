#include "core/error.h"

#include <cstdio>

namespace ma {
namespace {

std::string compose(const std::string& file, const std::string& field, const std::string& rule,
                    std::optional<uint64_t> offset) {
  std::string s = file.empty() ? std::string() : file;
  if (offset) s += (s.empty() ? "" : ":") + std::string("byte ") + std::to_string(*offset);
  if (!field.empty()) s += (s.empty() ? "" : ": ") + field;
  s += (s.empty() ? "" : ": ") + rule;
  return s;
}

}  // namespace

Error::Error(ErrorKind kind, std::string file, std::string field, std::string rule,
             std::optional<uint64_t> offset)
    : std::runtime_error(compose(file, field, rule, offset)),
      kind_(kind),
      file_(std::move(file)),
      field_(std::move(field)),
      rule_(std::move(rule)),
      offset_(offset) {}

std::string Error::message() const {
  return compose(file_, field_, rule_, offset_);
}

std::string printable(std::string_view s, size_t max_len) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max_len) {
      out += "...";
      break;
    }
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

bool is_input_fault(const Error& e) {
  switch (e.kind()) {
    case ErrorKind::Malformed:
    case ErrorKind::NotFound:
    case ErrorKind::Limit:
    case ErrorKind::Unsafe:
    case ErrorKind::Unsupported:
      return true;
    default:
      return false;
  }
}

std::string tensor_field(std::string_view name) {
  return "tensor '" + printable(name) + "'";
}

}  // namespace ma
