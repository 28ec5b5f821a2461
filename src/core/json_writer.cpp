#include "core/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/json.h"

namespace ma {

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  json::append_quoted(out_, k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  json::append_quoted(out_, s);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n) {
  separate();
  out_ += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n) {
  separate();
  out_ += std::to_string(n);
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  separate();
  if (!std::isfinite(d)) {
    out_ += "null";
    return *this;
  }
  // The shortest text that reads back as the same double: 1e-05, not 1.0000000000000001e-05.
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  out_.append(buf, static_cast<size_t>(r.ptr - buf));
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::rendered_elements(std::string_view text) {
  if (text.empty()) return *this;
  if (!first_.empty()) first_.back() = false;
  if (!sink_) {
    out_ += text;
    return *this;
  }
  flush();
  sink_(text);
  return *this;
}

JsonWriter& JsonWriter::newline() {
  out_ += '\n';
  maybe_flush();
  return *this;
}

void JsonWriter::flush() {
  if (sink_ && !out_.empty()) {
    sink_(out_);
    out_.clear();
  }
}

std::string indented_json(std::string_view json, int indent) {
  std::string out;
  int depth = 0;
  bool in_string = false, escaped = false;
  auto next_line = [&] { out += '\n' + std::string(static_cast<size_t>(depth * indent), ' '); };
  auto blank = [](char ch) { return ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r'; };
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      out += c;
      in_string = escaped || c != '"';
      escaped = !escaped && c == '\\';
      continue;
    }
    if (blank(c)) continue;
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') {
      size_t j = i + 1;
      while (j < json.size() && blank(json[j])) ++j;
      if (j < json.size() && (json[j] == '}' || json[j] == ']')) {
        out += c;  // an empty container stays on its line: "{}"
        out += json[j];
        i = j;
        continue;
      }
    }
    if (c == '}' || c == ']') {
      --depth;
      next_line();
    }
    out += c;
    if (c == ':') out += ' ';
    if (c == ',') next_line();
    if (c == '{' || c == '[') {
      ++depth;
      next_line();
    }
  }
  return out + "\n";
}

}  // namespace ma
