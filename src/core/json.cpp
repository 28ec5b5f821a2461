#include "core/json.h"

#include <charconv>
#include <cstring>
#include <limits>

#include "core/error.h"

namespace ma::json {

class Parser {
 public:
  Parser(std::string_view text, std::string_view source, std::deque<std::string>& strings, Limits limits)
      : p_(text.data()), begin_(text.data()), end_(text.data() + text.size()), source_(source),
        strings_(strings), limits_(limits) {}

  void parse_document(Value& root) {
    skip_ws();
    parse_value(root, 0);
    skip_ws();
    if (p_ != end_) fail("unexpected trailing characters after the JSON value");
  }

 private:
  const char* p_;
  const char* begin_;
  const char* end_;
  std::string_view source_;
  std::deque<std::string>& strings_;
  Limits limits_;

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ErrorKind::Malformed, std::string(source_), "JSON", why, static_cast<uint64_t>(p_ - begin_));
  }

  void skip_ws() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool consume(char c) {
    if (p_ != end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  void expect_literal(std::string_view lit) {
    if (static_cast<size_t>(end_ - p_) < lit.size() || std::memcmp(p_, lit.data(), lit.size()) != 0)
      fail("invalid literal");
    p_ += lit.size();
  }

  void parse_value(Value& v, uint32_t depth) {
    if (p_ == end_) fail("unexpected end of input");
    v.offset_ = static_cast<uint64_t>(p_ - begin_);
    switch (*p_) {
      case '{': parse_object(v, depth + 1); return;
      case '[': parse_array(v, depth + 1); return;
      case '"': v.type_ = Type::String; v.str_ = parse_string(); return;
      case 't': expect_literal("true"); v.type_ = Type::Bool; v.bool_ = true; return;
      case 'f': expect_literal("false"); v.type_ = Type::Bool; v.bool_ = false; return;
      case 'n': expect_literal("null"); v.type_ = Type::Null; return;
      case 'N':
      case 'I':
        if (limits_.allow_nonfinite) {
          parse_nonfinite(v);
          return;
        }
        fail(std::string("unexpected character '") + printable(std::string_view(p_, 1)) + "'");
      default:
        if (limits_.allow_nonfinite && *p_ == '-' && end_ - p_ > 1 && p_[1] == 'I') {
          parse_nonfinite(v);
          return;
        }
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) {
          parse_number(v);
          return;
        }
        fail(std::string("unexpected character '") + printable(std::string_view(p_, 1)) + "'");
    }
  }

  void check_depth(uint32_t depth) {
    if (depth > limits_.max_depth)
      fail("nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
  }

  void parse_object(Value& v, uint32_t depth) {
    check_depth(depth);
    v.type_ = Type::Object;
    ++p_;
    skip_ws();
    if (consume('}')) return;
    for (;;) {
      skip_ws();
      if (p_ == end_) fail("unexpected end of input");
      if (*p_ != '"') fail("expected a string key");
      Member& m = v.members_.emplace_back();
      m.key = parse_string();
      skip_ws();
      if (!consume(':')) fail("expected ':' after key");
      skip_ws();
      parse_value(m.value, depth);
      skip_ws();
      if (consume(',')) continue;
      if (consume('}')) return;
      fail("expected ',' or '}' in object");
    }
  }

  void parse_array(Value& v, uint32_t depth) {
    check_depth(depth);
    v.type_ = Type::Array;
    ++p_;
    skip_ws();
    if (consume(']')) return;
    for (;;) {
      skip_ws();
      parse_value(v.items_.emplace_back(), depth);
      skip_ws();
      if (consume(',')) continue;
      if (consume(']')) return;
      fail("expected ',' or ']' in array");
    }
  }

  void parse_nonfinite(Value& v) {
    const char* start = p_;
    bool negative = consume('-');
    if (!negative && end_ - p_ >= 3 && std::memcmp(p_, "NaN", 3) == 0) {
      p_ += 3;
      v.double_ = std::numeric_limits<double>::quiet_NaN();
    } else if (end_ - p_ >= 8 && std::memcmp(p_, "Infinity", 8) == 0) {
      p_ += 8;
      v.double_ = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    } else {
      fail("invalid literal");
    }
    v.type_ = Type::Number;
    v.str_ = std::string_view(start, static_cast<size_t>(p_ - start));
  }

  void parse_number(Value& v) {
    const char* start = p_;
    v.type_ = Type::Number;
    v.negative_ = consume('-');
    if (p_ == end_) fail("truncated number");
    if (*p_ == '0') {
      ++p_;
    } else if (*p_ >= '1' && *p_ <= '9') {
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    } else {
      fail("invalid number");
    }
    bool integer = true;
    if (p_ != end_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (p_ == end_ || !(*p_ >= '0' && *p_ <= '9')) fail("invalid number: digit expected after '.'");
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !(*p_ >= '0' && *p_ <= '9')) fail("invalid number: digit expected in exponent");
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    v.str_ = std::string_view(start, static_cast<size_t>(p_ - start));
    v.integer_ = integer;
    if (integer) {
      const char* digits = start + (v.negative_ ? 1 : 0);
      auto r = std::from_chars(digits, p_, v.u64_);
      v.fits_u64_ = r.ec == std::errc() && r.ptr == p_;
    }
    auto r = std::from_chars(start, p_, v.double_);
    if (r.ec == std::errc::result_out_of_range) fail("number out of range: " + std::string(v.str_));
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  uint32_t parse_hex4() {
    if (end_ - p_ < 4) fail("truncated \\u escape");
    uint32_t cp = 0;
    for (int i = 0; i < 4; ++i) {
      int h = hex(p_[i]);
      if (h < 0) fail("invalid \\u escape");
      cp = cp * 16 + static_cast<uint32_t>(h);
    }
    p_ += 4;
    return cp;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // Validates one UTF-8 sequence starting at p_ (a byte >= 0x80) and advances past it.
  void skip_utf8_sequence() {
    auto c = static_cast<unsigned char>(*p_);
    int len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else fail("invalid UTF-8 byte in string");
    if (end_ - p_ < len) fail("truncated UTF-8 sequence in string");
    for (int i = 1; i < len; ++i) {
      auto cc = static_cast<unsigned char>(p_[i]);
      if ((cc & 0xC0) != 0x80) fail("invalid UTF-8 continuation byte in string");
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      fail("invalid UTF-8 sequence in string");
    p_ += len;
  }

  std::string_view parse_string() {
    ++p_;  // opening quote
    const char* start = p_;
    // Fast path: no escapes.
    while (p_ != end_) {
      auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        std::string_view s(start, static_cast<size_t>(p_ - start));
        ++p_;
        return s;
      }
      if (c == '\\') break;
      if (c < 0x20) fail("control character in string");
      if (c >= 0x80) skip_utf8_sequence();
      else ++p_;
    }
    if (p_ == end_) fail("unterminated string");
    std::string& out = strings_.emplace_back(start, static_cast<size_t>(p_ - start));
    while (p_ != end_) {
      auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        return out;
      }
      if (c < 0x20) fail("control character in string");
      if (c >= 0x80) {
        const char* s = p_;
        skip_utf8_sequence();
        out.append(s, static_cast<size_t>(p_ - s));
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        ++p_;
        continue;
      }
      ++p_;
      if (p_ == end_) fail("unterminated escape");
      char e = *p_++;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = parse_hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') fail("unpaired UTF-16 surrogate");
            p_ += 2;
            uint32_t lo = parse_hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("invalid UTF-16 surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("unpaired UTF-16 surrogate");
          }
          append_utf8(out, cp);
          break;
        }
        default: fail("invalid escape character");
      }
    }
    fail("unterminated string");
  }
};

std::optional<uint64_t> Value::as_uint() const {
  if (type_ != Type::Number || !integer_ || !fits_u64_) return std::nullopt;
  if (negative_) {
    if (u64_ == 0) return 0;  // "-0"
    return std::nullopt;
  }
  return u64_;
}

std::optional<int64_t> Value::as_int() const {
  if (type_ != Type::Number || !integer_ || !fits_u64_) return std::nullopt;
  if (!negative_) {
    if (u64_ > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u64_);
  }
  if (u64_ > static_cast<uint64_t>(INT64_MAX) + 1) return std::nullopt;
  return u64_ == static_cast<uint64_t>(INT64_MAX) + 1 ? INT64_MIN : -static_cast<int64_t>(u64_);
}

const Value* Value::find(std::string_view key) const {
  if (type_ != Type::Object) return nullptr;
  for (auto it = members_.rbegin(); it != members_.rend(); ++it)
    if (it->key == key) return &it->value;
  return nullptr;
}

Document Document::parse(std::string text, std::string_view source, Limits limits) {
  if (text.size() > limits.max_bytes)
    throw Error(ErrorKind::Limit, std::string(source), "JSON",
                "document is " + std::to_string(text.size()) + " bytes, over the cap of " +
                    std::to_string(limits.max_bytes));
  Document doc;
  doc.text_ = std::make_unique<std::string>(std::move(text));
  doc.unescaped_ = std::make_unique<std::deque<std::string>>();
  std::string_view t = *doc.text_;
  if (t.size() >= 3 && static_cast<unsigned char>(t[0]) == 0xEF && static_cast<unsigned char>(t[1]) == 0xBB &&
      static_cast<unsigned char>(t[2]) == 0xBF)
    throw Error(ErrorKind::Malformed, std::string(source), "JSON", "starts with a UTF-8 byte-order mark", 0);
  Parser parser(t, source, *doc.unescaped_, limits);
  parser.parse_document(doc.root_);
  return doc;
}

void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          static const char* hexd = "0123456789abcdef";
          out += "\\u00";
          out += hexd[c >> 4];
          out += hexd[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

}  // namespace ma::json
