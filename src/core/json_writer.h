// A minimal streaming JSON writer for our reports and the files we write: objects, arrays, scalars, with
// commas and escaping handled; no DOM, so a 45,000-tensor export is written in one pass.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ma {

class JsonWriter {
 public:
  using Sink = std::function<void(std::string_view)>;
  JsonWriter() = default;
  // Streams to `sink` in chunks instead of accumulating: a 45,000-tensor export never sits in memory whole.
  explicit JsonWriter(Sink sink) : sink_(std::move(sink)) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(uint64_t n);
  JsonWriter& value(int64_t n);
  JsonWriter& value(int n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(uint32_t n) { return value(static_cast<uint64_t>(n)); }
  JsonWriter& value(double d);
  JsonWriter& value(bool b);
  JsonWriter& null();
  // Unknowns are null: an absent optional, a zero count, an empty text.
  template <typename T>
  JsonWriter& value_or_null(const std::optional<T>& v) {
    return v ? value(*v) : null();
  }
  JsonWriter& count_or_null(uint64_t n) { return n ? value(n) : null(); }
  JsonWriter& text_or_null(std::string_view s) { return s.empty() ? null() : value(s); }
  // An array of numbers, or null for none (a block shape, a tensor split: not there rather than empty).
  template <typename Numbers>
  JsonWriter& numbers_or_null(const Numbers& v) {
    if (v.empty()) return null();
    begin_array();
    for (const auto& n : v) value(n);
    return end_array();
  }
  // A value already rendered as JSON (the caller guarantees it is valid), placed like any other value.
  JsonWriter& raw(std::string_view json);
  // Elements rendered elsewhere, each as newline() and raw() would write it: "\n" and, before all but the
  // container's first element, ",". Handed straight to the sink after what is buffered.
  JsonWriter& rendered_elements(std::string_view text);
  // Writes a newline before the next element: keeps large arrays one element per line.
  JsonWriter& newline();
  // Hands what is buffered to the sink (call once at the end when streaming).
  void flush();
  std::string take() { return std::move(out_); }
  const std::string& str() const { return out_; }

 private:
  void separate();
  void maybe_flush() {
    if (sink_ && out_.size() >= kChunk) flush();
  }
  static constexpr size_t kChunk = 1 << 16;
  Sink sink_;
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

// `json` (valid JSON, as JsonWriter writes it) laid out with `indent` spaces per level, one member or item a
// line, as Python's json.dump(indent=2) does: for small files people read and edit (a simulator config).
std::string indented_json(std::string_view json, int indent = 2);

}  // namespace ma
