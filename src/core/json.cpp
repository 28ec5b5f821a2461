#include "core/json.h"

#include <charconv>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.h"

namespace ma::json {

// ---- Byte scanning ----

namespace {

constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;

// Non-zero when any of the 8 bytes in `w` is a quote, a backslash, a control character (< 0x20) or non-ASCII:
// the bytes a JSON string scanner must look at one by one. Everything else is skipped 8 bytes at a time.
inline uint64_t special_bytes(uint64_t w) {
  auto zero_byte = [](uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  return zero_byte(w ^ (kOnes * '"')) | zero_byte(w ^ (kOnes * '\\')) | ((w - kOnes * 0x20) & ~w & kHighs) |
         (w & kHighs);
}

#if defined(__SSE2__)
// The special bytes among 16, one bit each (bit i for p[i]). As signed bytes, the control characters and
// every non-ASCII byte are the ones below 0x20: one comparison finds both.
inline unsigned special_mask16(const char* p) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i special = _mm_or_si128(
      _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
      _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
  return static_cast<unsigned>(_mm_movemask_epi8(special));
}
#endif

// Advances `p` past plain ASCII string bytes: 16 at a time where SSE2 is (every x86-64), then 8 at a time.
// A tensor name is about 50 bytes: three steps, not six.
inline const char* skip_plain(const char* p, const char* end) {
#if defined(__SSE2__)
  while (end - p >= 16) {
    if (const unsigned mask = special_mask16(p)) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    if (special_bytes(w)) break;
    p += 8;
  }
  return p;
}

}  // namespace

// ---- Number ----

std::optional<uint64_t> Number::as_uint() const {
  if (!integer || !fits_u64) return std::nullopt;
  if (negative) return magnitude == 0 ? std::optional<uint64_t>(0) : std::nullopt;  // "-0"
  return magnitude;
}

std::optional<int64_t> Number::as_int() const {
  if (!integer || !fits_u64) return std::nullopt;
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  if (!negative)
    return magnitude <= kMax ? std::optional<int64_t>(static_cast<int64_t>(magnitude)) : std::nullopt;
  if (magnitude > kMax + 1) return std::nullopt;
  return magnitude == kMax + 1 ? INT64_MIN : -static_cast<int64_t>(magnitude);
}

// ---- Reader ----

Reader::Reader(std::string_view text, std::string_view source, Limits limits, uint64_t origin)
    : p_(text.data()),
      begin_(text.data()),
      end_(text.data() + text.size()),
      source_(source),
      limits_(limits),
      origin_(origin) {}

void Reader::fail(const std::string& why) const {
  throw Error(ErrorKind::Malformed, std::string(source_), "JSON", why, offset());
}

void Reader::skip_ws() {
  while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
}

bool Reader::consume(char c) {
  if (p_ != end_ && *p_ == c) {
    ++p_;
    return true;
  }
  return false;
}

void Reader::expect_literal(std::string_view lit) {
  if (static_cast<size_t>(end_ - p_) < lit.size() || std::memcmp(p_, lit.data(), lit.size()) != 0)
    fail("invalid literal");
  p_ += lit.size();
}

Reader::Kind Reader::peek() {
  skip_ws();
  if (p_ == end_) fail("unexpected end of input");
  switch (*p_) {
    case '{':
      return Kind::Object;
    case '[':
      return Kind::Array;
    case '"':
      return Kind::String;
    case 't':
    case 'f':
      return Kind::Bool;
    case 'n':
      return Kind::Null;
    case 'N':
    case 'I':
      if (limits_.allow_nonfinite) return Kind::Number;
      break;
    default:
      if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) return Kind::Number;
  }
  fail(std::string("unexpected character '") + printable(std::string_view(p_, 1)) + "'");
}

void Reader::enter() {
  if (++depth_ > limits_.max_depth)
    fail("nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
  first_.push_back(true);
}

void Reader::begin_object() {
  if (peek() != Kind::Object) fail("expected an object");
  ++p_;
  enter();
}

void Reader::begin_array() {
  if (peek() != Kind::Array) fail("expected an array");
  ++p_;
  enter();
}

bool Reader::next_member(std::string_view& key) {
  skip_ws();
  if (p_ == end_) fail("unexpected end of input");
  if (first_.back()) {
    first_.back() = false;
    if (consume('}')) {
      --depth_;
      first_.pop_back();
      return false;
    }
  } else {
    if (consume('}')) {
      --depth_;
      first_.pop_back();
      return false;
    }
    if (!consume(',')) fail("expected ',' or '}' in object");
    skip_ws();
  }
  if (p_ == end_) fail("unexpected end of input");
  if (*p_ != '"') fail("expected a string key");
  key = string();
  skip_ws();
  if (!consume(':')) fail("expected ':' after key");
  return true;
}

bool Reader::next_item() {
  skip_ws();
  if (p_ == end_) fail("unexpected end of input");
  if (consume(']')) {
    --depth_;
    first_.pop_back();
    return false;
  }
  if (first_.back()) {
    first_.back() = false;
  } else {
    if (!consume(',')) fail("expected ',' or ']' in array");
    skip_ws();
    if (p_ != end_ && *p_ == ']') fail("unexpected character ']'");
  }
  return true;
}

bool Reader::boolean() {
  skip_ws();
  if (p_ != end_ && *p_ == 't') {
    expect_literal("true");
    return true;
  }
  expect_literal("false");
  return false;
}

void Reader::null() {
  skip_ws();
  expect_literal("null");
}

void Reader::nonfinite(Number& n) {
  const char* start = p_;
  bool negative = consume('-');
  if (!negative && end_ - p_ >= 3 && std::memcmp(p_, "NaN", 3) == 0) {
    p_ += 3;
    n.value = std::numeric_limits<double>::quiet_NaN();
  } else if (end_ - p_ >= 8 && std::memcmp(p_, "Infinity", 8) == 0) {
    p_ += 8;
    n.value = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  } else {
    fail("invalid literal");
  }
  n.raw = std::string_view(start, static_cast<size_t>(p_ - start));
}

Number Reader::number() {
  skip_ws();
  Number n;
  if (limits_.allow_nonfinite && p_ != end_ &&
      (*p_ == 'N' || *p_ == 'I' || (*p_ == '-' && end_ - p_ > 1 && p_[1] == 'I'))) {
    nonfinite(n);
    return n;
  }
  const char* start = p_;
  n.negative = consume('-');
  if (p_ == end_) fail("truncated number");
  if (*p_ == '0') {
    ++p_;
  } else if (*p_ >= '1' && *p_ <= '9') {
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  } else {
    fail("invalid number");
  }
  n.integer = true;
  if (p_ != end_ && *p_ == '.') {
    n.integer = false;
    ++p_;
    if (p_ == end_ || !(*p_ >= '0' && *p_ <= '9')) fail("invalid number: digit expected after '.'");
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  }
  if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
    n.integer = false;
    ++p_;
    if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == end_ || !(*p_ >= '0' && *p_ <= '9')) fail("invalid number: digit expected in exponent");
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
  }
  n.raw = std::string_view(start, static_cast<size_t>(p_ - start));
  if (n.integer) {
    const char* digits = start + (n.negative ? 1 : 0);
    auto r = std::from_chars(digits, p_, n.magnitude);
    n.fits_u64 = r.ec == std::errc() && r.ptr == p_;
    if (n.fits_u64 && n.magnitude < (1ull << 53)) {  // exact: skip the float conversion
      n.value = n.negative ? -static_cast<double>(n.magnitude) : static_cast<double>(n.magnitude);
      return n;
    }
  }
  auto r = std::from_chars(start, p_, n.value);
  if (r.ec == std::errc::result_out_of_range) fail("number out of range: " + std::string(n.raw));
  return n;
}

uint32_t Reader::hex4() {
  if (end_ - p_ < 4) fail("truncated \\u escape");
  uint32_t cp = 0;
  for (int i = 0; i < 4; ++i) {
    char c = p_[i];
    int h = (c >= '0' && c <= '9')   ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : -1;
    if (h < 0) fail("invalid \\u escape");
    cp = cp * 16 + static_cast<uint32_t>(h);
  }
  p_ += 4;
  return cp;
}

namespace {

void append_utf8(std::string& out, uint32_t cp) {
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

}  // namespace

// Validates one UTF-8 sequence starting at p_ (a byte >= 0x80) and advances past it.
void Reader::skip_utf8_sequence() {
  auto c = static_cast<unsigned char>(*p_);
  int len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else
    fail("invalid UTF-8 byte in string");
  if (end_ - p_ < len) fail("truncated UTF-8 sequence in string");
  for (int i = 1; i < len; ++i) {
    auto cc = static_cast<unsigned char>(p_[i]);
    if ((cc & 0xC0) != 0x80) fail("invalid UTF-8 continuation byte in string");
    cp = (cp << 6) | (cc & 0x3F);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    fail("invalid UTF-8 sequence in string");
  p_ += len;
}

bool Reader::take_string(std::string_view value) {
  skip_ws();
  const auto left = static_cast<size_t>(end_ - p_);
  if (left < value.size() + 2 || p_[0] != '"' || std::memcmp(p_ + 1, value.data(), value.size()) != 0 ||
      p_[value.size() + 1] != '"')
    return false;
  p_ += value.size() + 2;
  return true;
}

std::string_view Reader::string() {
  skip_ws();
  if (p_ == end_ || *p_ != '"') fail("expected a string");
  ++p_;
  const char* start = p_;
  // Fast path: no escapes, the view points into the text.
  while (p_ != end_) {
    p_ = skip_plain(p_, end_);
    if (p_ == end_) break;
    auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      std::string_view s(start, static_cast<size_t>(p_ - start));
      ++p_;
      return s;
    }
    if (c == '\\') break;
    if (c < 0x20) fail("control character in string");
    if (c >= 0x80)
      skip_utf8_sequence();
    else
      ++p_;
  }
  if (p_ == end_) fail("unterminated string");
  scratch_.assign(start, static_cast<size_t>(p_ - start));
  while (p_ != end_) {
    auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      ++p_;
      return scratch_;
    }
    if (c < 0x20) fail("control character in string");
    if (c >= 0x80) {
      const char* s = p_;
      skip_utf8_sequence();
      scratch_.append(s, static_cast<size_t>(p_ - s));
      continue;
    }
    if (c != '\\') {
      scratch_ += static_cast<char>(c);
      ++p_;
      continue;
    }
    ++p_;
    if (p_ == end_) fail("unterminated escape");
    char e = *p_++;
    switch (e) {
      case '"':
        scratch_ += '"';
        break;
      case '\\':
        scratch_ += '\\';
        break;
      case '/':
        scratch_ += '/';
        break;
      case 'b':
        scratch_ += '\b';
        break;
      case 'f':
        scratch_ += '\f';
        break;
      case 'n':
        scratch_ += '\n';
        break;
      case 'r':
        scratch_ += '\r';
        break;
      case 't':
        scratch_ += '\t';
        break;
      case 'u': {
        uint32_t cp = hex4();
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') fail("unpaired UTF-16 surrogate");
          p_ += 2;
          uint32_t lo = hex4();
          if (lo < 0xDC00 || lo > 0xDFFF) fail("invalid UTF-16 surrogate pair");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail("unpaired UTF-16 surrogate");
        }
        append_utf8(scratch_, cp);
        break;
      }
      default:
        fail("invalid escape character");
    }
  }
  fail("unterminated string");
}

void Reader::skip() {
  switch (peek()) {
    case Kind::Object: {
      begin_object();
      std::string_view k;
      while (next_member(k)) skip();
      return;
    }
    case Kind::Array:
      begin_array();
      while (next_item()) skip();
      return;
    case Kind::String:
      string();
      return;
    case Kind::Number:
      number();
      return;
    case Kind::Bool:
      boolean();
      return;
    case Kind::Null:
      null();
      return;
  }
}

void Reader::finish() {
  skip_ws();
  if (p_ != end_) fail("unexpected trailing characters after the JSON value");
}

// ---- Document: a DOM built with the Reader ----

class DomBuilder {
 public:
  DomBuilder(Reader& r, std::deque<std::string>& strings, std::string_view text, std::string_view source,
             uint64_t max_values)
      : r_(r),
        strings_(strings),
        text_(text),
        source_(source),
        values_left_(max_values),
        max_values_(max_values) {}

  void value(Value& v) {
    Reader::Kind k = r_.peek();
    v.offset_ = r_.offset();
    if (values_left_-- == 0)
      throw Error(ErrorKind::Limit, std::string(source_), "JSON",
                  "more values (objects, arrays, items, members) than the cap of " +
                      std::to_string(max_values_) + " for this document",
                  v.offset_);
    switch (k) {
      case Reader::Kind::Object: {
        v.type_ = Type::Object;
        r_.begin_object();
        std::string_view key;
        while (r_.next_member(key)) {
          Member& m = v.members_.emplace_back();
          m.key = keep(key);
          value(m.value);
        }
        return;
      }
      case Reader::Kind::Array:
        v.type_ = Type::Array;
        r_.begin_array();
        while (r_.next_item()) value(v.items_.emplace_back());
        return;
      case Reader::Kind::String:
        v.type_ = Type::String;
        v.str_ = keep(r_.string());
        return;
      case Reader::Kind::Bool:
        v.type_ = Type::Bool;
        v.bool_ = r_.boolean();
        return;
      case Reader::Kind::Null:
        r_.null();
        v.type_ = Type::Null;
        return;
      case Reader::Kind::Number: {
        Number n = r_.number();
        v.type_ = Type::Number;
        v.str_ = n.raw;
        v.integer_ = n.integer;
        v.negative_ = n.negative;
        v.fits_u64_ = n.fits_u64;
        v.u64_ = n.magnitude;
        v.double_ = n.value;
        return;
      }
    }
  }

 private:
  // Views into the text stay valid; strings unescaped into the reader's scratch buffer are copied.
  std::string_view keep(std::string_view s) {
    if (s.data() >= text_.data() && s.data() + s.size() <= text_.data() + text_.size()) return s;
    return strings_.emplace_back(s);
  }
  Reader& r_;
  std::deque<std::string>& strings_;
  std::string_view text_;
  std::string_view source_;
  uint64_t values_left_;  // Limits::max_values less the values built so far
  uint64_t max_values_;
};

Number Value::number() const {
  Number n;
  n.raw = str_;
  n.integer = integer_;
  n.negative = negative_;
  n.fits_u64 = fits_u64_;
  n.magnitude = u64_;
  n.value = double_;
  return n;
}

std::optional<uint64_t> Value::as_uint() const {
  return type_ == Type::Number ? number().as_uint() : std::nullopt;
}

std::optional<int64_t> Value::as_int() const {
  return type_ == Type::Number ? number().as_int() : std::nullopt;
}

const Value* Value::find(std::string_view key) const {
  if (type_ != Type::Object) return nullptr;
  for (auto it = members_.rbegin(); it != members_.rend(); ++it)
    if (it->key == key) return &it->value;
  return nullptr;
}

Document Document::parse(std::string text, std::string_view source, Limits limits) {
  check_document_size(text, source, limits);
  Document doc;
  doc.text_ = std::make_unique<std::string>(std::move(text));
  doc.unescaped_ = std::make_unique<std::deque<std::string>>();
  Reader reader(*doc.text_, source, limits);
  DomBuilder(reader, *doc.unescaped_, *doc.text_, source, limits.max_values).value(doc.root_);
  reader.finish();
  return doc;
}

void check_document_size(std::string_view text, std::string_view source, const Limits& limits) {
  if (text.size() > limits.max_bytes)
    throw Error(ErrorKind::Limit, std::string(source), "JSON",
                "document is " + std::to_string(text.size()) + " bytes, over the cap of " +
                    std::to_string(limits.max_bytes));
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
      static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF)
    throw Error(ErrorKind::Malformed, std::string(source), "JSON", "starts with a UTF-8 byte-order mark", 0);
}

char* write_quoted(char* out, std::string_view s) {
  *out++ = '"';
  const char* p = s.data();
  const char* const end = p + s.size();
#if defined(__SSE2__)
  while (end - p >= 16) {  // plain ASCII 16 bytes at a time: one load, one test, one store
    if (special_mask16(p)) break;
    std::memcpy(out, p, 16);
    p += 16;
    out += 16;
  }
#endif
  while (end - p >= 8) {  // then 8 at a time
    uint64_t w;
    std::memcpy(&w, p, 8);
    if (special_bytes(w)) break;
    std::memcpy(out, &w, 8);
    p += 8;
    out += 8;
  }
  for (; p != end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != '"' && c != '\\') {  // UTF-8 is written as it is
      *out++ = static_cast<char>(c);
      continue;
    }
    *out++ = '\\';
    switch (c) {
      case '"':
      case '\\':
        *out++ = static_cast<char>(c);
        break;
      case '\n':
        *out++ = 'n';
        break;
      case '\r':
        *out++ = 'r';
        break;
      case '\t':
        *out++ = 't';
        break;
      default: {
        static const char* hexd = "0123456789abcdef";
        std::memcpy(out, "u00", 3);
        out[3] = hexd[c >> 4];
        out[4] = hexd[c & 15];
        out += 5;
      }
    }
  }
  *out++ = '"';
  return out;
}

void append_quoted(std::string& out, std::string_view s) {
  const size_t before = out.size();
  out.resize(before + quoted_size_bound(s.size()));
  out.resize(static_cast<size_t>(write_quoted(out.data() + before, s) - out.data()));
}

void append_value(std::string& out, const Value& v, std::string_view drop) {
  switch (v.type()) {
    case Type::Null:
      out += "null";
      return;
    case Type::Bool:
      out += v.as_bool() ? "true" : "false";
      return;
    case Type::Number:
      out += v.raw();
      return;
    case Type::String:
      append_quoted(out, v.as_string());
      return;
    case Type::Array: {
      out += '[';
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i) out += ',';
        append_value(out, v.items()[i]);
      }
      out += ']';
      return;
    }
    case Type::Object: {
      out += '{';
      bool first = true;
      for (const Member& m : v.members()) {
        if (!drop.empty() && m.key == drop) continue;
        if (!first) out += ',';
        first = false;
        append_quoted(out, m.key);
        out += ':';
        append_value(out, m.value);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace ma::json
