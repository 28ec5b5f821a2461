// A strict, bounded JSON reader for untrusted input (safetensors headers, config.json, index files).
// RFC 8259 grammar, UTF-8 validated, NaN/Infinity rejected, nesting capped, integers kept exact up to 2^64-1.
// Strings without escapes are views into the document's own copy of the text, so parsing a 6 MB header
// makes no per-string allocation.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ma::json {

enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };

struct Member;

// A number as written: exact integer views plus the nearest double.
struct Number {
  std::string_view raw;
  bool integer = false;  // no fraction or exponent
  bool negative = false;
  bool fits_u64 = false;  // |value| fits in 64 bits (integers only)
  uint64_t magnitude = 0;
  double value = 0;
  std::optional<uint64_t> as_uint() const;
  std::optional<int64_t> as_int() const;
};

class Value {
 public:
  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::Null; }
  bool is_bool() const { return type_ == Type::Bool; }
  bool is_number() const { return type_ == Type::Number; }
  bool is_string() const { return type_ == Type::String; }
  bool is_array() const { return type_ == Type::Array; }
  bool is_object() const { return type_ == Type::Object; }

  bool as_bool() const { return bool_; }
  // Exact unsigned integer, when the literal is a non-negative integer (no fraction/exponent) that fits.
  std::optional<uint64_t> as_uint() const;
  // Exact signed integer, when the literal is an integer that fits in int64.
  std::optional<int64_t> as_int() const;
  double as_double() const { return double_; }
  bool is_integer_literal() const { return integer_; }
  std::string_view as_string() const { return str_; }
  // The number's source text, for messages.
  std::string_view raw() const { return str_; }

  const std::vector<Value>& items() const { return items_; }
  const std::vector<Member>& members() const { return members_; }
  // Object lookup; like Python's json, the last of duplicate keys wins. nullptr if absent or not an object.
  const Value* find(std::string_view key) const;
  // Byte offset of this value in the document, for error messages.
  uint64_t offset() const { return offset_; }

 private:
  friend class DomBuilder;
  Number number() const;
  Type type_ = Type::Null;
  bool bool_ = false;
  bool integer_ = false;
  bool negative_ = false;
  bool fits_u64_ = false;
  uint64_t u64_ = 0;
  double double_ = 0;
  uint64_t offset_ = 0;
  std::string_view str_;
  std::vector<Value> items_;
  std::vector<Member> members_;
};

struct Member {
  std::string_view key;
  Value value;
};

struct Limits {
  uint32_t max_depth = 128;  // serde_json's limit: deep nesting is an error, never a stack overflow
  uint64_t max_bytes = 100'000'000;
  // Document::parse only: the most values (objects, arrays, members' values, items, scalars) a DOM may hold.
  // A value costs about 100 bytes in memory, so the byte cap alone lets a file of small array items take
  // tens of times its size; over the cap is Error Limit naming the cap.
  uint64_t max_values = UINT64_MAX;
  // Python's json.dumps writes NaN / Infinity / -Infinity; configs written by transformers contain them
  // (Nemotron-H's time_step_limit). Accepted only where asked for; safetensors headers never allow them.
  bool allow_nonfinite = false;
};

// A pull reader over JSON text: the one tokenizer and validator behind Document, and used directly by
// the hot parsers (safetensors headers, shard indexes) so they build their own structures without a DOM.
// Strings are views into the text, or into a scratch buffer (when they contain escapes) that the next
// string() call overwrites.
class Reader {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };
  // `origin`: where `text` begins in `source` (a safetensors header at byte 8), so that offsets, and the
  // byte an error names, are the source's.
  Reader(std::string_view text, std::string_view source, Limits limits = {}, uint64_t origin = 0);

  Kind peek();  // the kind of the next value (after whitespace); fails at end of input
  void begin_object();
  bool next_member(std::string_view& key);  // false at '}'; key valid until the next string read
  void begin_array();
  bool next_item();  // false at ']'
  std::string_view string();
  Number number();
  bool boolean();
  void null();
  void skip();    // any value, fully validated
  void finish();  // only whitespace may follow
  uint64_t offset() const { return origin_ + static_cast<uint64_t>(p_ - begin_); }
  [[noreturn]] void fail(const std::string& why) const;
  // For a hot loop that recognises the usual spelling of a value byte for byte and leaves every other
  // spelling to the reader (safetensors headers): the text not yet read, and a step past `n` bytes the
  // caller has checked to be one complete value, where a value was expected.
  std::string_view unread() const { return {p_, static_cast<size_t>(end_ - p_)}; }
  // Whether a string this reader returned is a view into the text (it had no escape), not into the scratch
  // buffer the next string() overwrites: one to keep past that must then be copied. A view into the text
  // holds no byte below 0x20 (those must be escaped).
  bool in_text(std::string_view s) const {
    const auto at = reinterpret_cast<uintptr_t>(s.data());
    const auto begin = reinterpret_cast<uintptr_t>(begin_);
    return at >= begin && at + s.size() <= reinterpret_cast<uintptr_t>(end_);
  }
  void skip_read(size_t n) { p_ += n; }
  // Consumes the string value `value` when the text spells it next exactly as "value" (after whitespace) and
  // says so; otherwise consumes nothing but whitespace. For a value the reader returned once already, so one
  // that needs no escape: the same bytes again are the same string, one comparison instead of a scan.
  bool take_string(std::string_view value);

 private:
  void skip_ws();
  bool consume(char c);
  void expect_literal(std::string_view lit);
  void enter();
  uint32_t hex4();
  void skip_utf8_sequence();
  void nonfinite(Number& n);

  const char* p_;
  const char* begin_;
  const char* end_;
  std::string_view source_;
  Limits limits_;
  uint64_t origin_ = 0;
  uint32_t depth_ = 0;
  std::vector<bool> first_;  // per open container: no element read yet
  std::string scratch_;
};

// A parsed document. Owns the text and any unescaped strings that Values point into; not copyable so those
// views stay valid.
class Document {
 public:
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;
  Document(Document&&) = default;
  Document& operator=(Document&&) = default;
  const Value& root() const { return root_; }

  // Throws ma::Error (Malformed, or Limit for the size cap) naming `source` and the byte offset.
  static Document parse(std::string text, std::string_view source, Limits limits = {});

 private:
  Document() = default;
  std::unique_ptr<std::string> text_;
  std::unique_ptr<std::deque<std::string>> unescaped_;
  Value root_;
};

// The checks every document passes before parsing: the size cap (Error Limit) and no byte-order mark.
void check_document_size(std::string_view text, std::string_view source, const Limits& limits);

// Writes `s` as a JSON string literal (with quotes) to `out`.
void append_quoted(std::string& out, std::string_view s);
// `v` as JSON text (numbers as written), appended to `out`; an object's member `drop` is left out. Lets a
// family rebuild a nested config with one field changed (an encoder-decoder's decoder as its causal-LM
// class).
void append_value(std::string& out, const Value& v, std::string_view drop = {});
// The most bytes a JSON string literal of `n` bytes takes: two quotes and, at worst, "\u00XX" per byte.
constexpr size_t quoted_size_bound(size_t n) {
  return 6 * n + 2;
}
// The same literal written at `out`, which has room for quoted_size_bound(s.size()) bytes; returns its end.
// For writers that fill a buffer of their own (the tensor rows of a large export).
char* write_quoted(char* out, std::string_view s);
// Whether `s` is its own JSON string body: printable ASCII without '"' or '\\'. The tool's own names (dtypes,
// blocks, tensor kinds) are, as their tables assert, so a writer may copy them between quotes unscanned.
constexpr bool quotes_as_is(std::string_view s) {
  for (const char c : s)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
}

}  // namespace ma::json
