// The strict JSON reader: exact integers, RFC 8259 grammar, UTF-8 validation, bounded nesting (rows J1, J3).
#include "core/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json_writer.h"

namespace ma {
namespace {

json::Document parse_json(const std::string& s) {
  return json::Document::parse(s, "test.json");
}

// Printable ASCII that differs from byte to byte, so a copy from the wrong offset shows: capitals, which no
// JSON escape is.
std::string plain_text(size_t length) {
  std::string s(length, ' ');
  for (size_t i = 0; i < length; ++i) s[i] = static_cast<char>('A' + i % 26);
  return s;
}

void expect_malformed(const std::string& s, const std::string& needle) {
  try {
    parse_json(s);
    ADD_FAILURE() << "accepted: " << s.substr(0, 60);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Malformed);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test.json"), std::string::npos) << e.what();
  }
}

TEST(Json, ParsesNestedValues) {
  auto d = parse_json(R"( {"a": [1, -2, 3.5e2, true, false, null], "b": {"c": "x\u00e9\ud83d\ude00\n"}} )");
  const json::Value& a = *d.root().find("a");
  ASSERT_EQ(a.items().size(), 6u);
  EXPECT_EQ(*a.items()[0].as_uint(), 1u);
  EXPECT_EQ(*a.items()[1].as_int(), -2);
  EXPECT_FALSE(a.items()[1].as_uint());
  EXPECT_DOUBLE_EQ(a.items()[2].as_double(), 350.0);
  EXPECT_FALSE(a.items()[2].as_uint()) << "3.5e2 is not an integer literal";
  EXPECT_TRUE(a.items()[3].as_bool());
  EXPECT_TRUE(a.items()[5].is_null());
  EXPECT_EQ(d.root().find("b")->find("c")->as_string(), "x\xc3\xa9\xf0\x9f\x98\x80\n");
}

TEST(Json, IntegersStayExactTo64Bits) {
  auto d = parse_json("[18446744073709551615, 18446744073709551616, 9007199254740993, -9223372036854775808]");
  EXPECT_EQ(*d.root().items()[0].as_uint(), 18446744073709551615ull);
  EXPECT_FALSE(d.root().items()[1].as_uint()) << "2^64 does not fit";
  EXPECT_EQ(*d.root().items()[2].as_uint(), 9007199254740993ull) << "beyond double precision";
  EXPECT_EQ(*d.root().items()[3].as_int(), INT64_MIN);
}

TEST(Json, LastDuplicateKeyWinsLikePython) {
  auto d = parse_json(R"({"k": 1, "k": 2})");
  EXPECT_EQ(*d.root().find("k")->as_uint(), 2u);
}

TEST(Json, RejectsNonJson) {
  expect_malformed("{", "unexpected end");
  expect_malformed("[1,]", "unexpected character");
  expect_malformed("[NaN]", "unexpected character");
  expect_malformed("[Infinity]", "unexpected character");
  expect_malformed("[01]", "expected ',' or ']'");
  expect_malformed("[1e400]", "out of range");
  expect_malformed("\"\\x\"", "escape");
  expect_malformed("\"a\nb\"", "control character");
  expect_malformed("\"\xc3\"", "UTF-8");
  expect_malformed("\"\xed\xa0\x80\"", "UTF-8");  // encoded surrogate
  expect_malformed("\"\\ud800\"", "surrogate");
  expect_malformed("\xef\xbb\xbf{}", "byte-order mark");
  expect_malformed("{} {}", "trailing");
}

TEST(Json, NestingIsCapped) {
  expect_malformed(std::string(129, '[') + std::string(129, ']'), "nesting deeper than 128");
  EXPECT_NO_THROW(parse_json(std::string(128, '[') + std::string(128, ']')));
  expect_malformed(std::string(1000000, '['), "nesting");
}

TEST(Json, SizeCapIsALimitError) {
  json::Limits l;
  l.max_bytes = 10;
  try {
    json::Document::parse(std::string(11, ' '), "big.json", l);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
  }
}

TEST(Json, ErrorCarriesByteOffset) {
  try {
    parse_json("{\"a\": tru}");
    ADD_FAILURE();
  } catch (const Error& e) {
    ASSERT_TRUE(e.offset().has_value());
    EXPECT_EQ(*e.offset(), 6u);
  }
}

}  // namespace
}  // namespace ma

namespace ma {
namespace {

TEST(Json, NonFiniteLiteralsOnlyWhereAllowed) {
  json::Limits l;
  l.allow_nonfinite = true;
  auto d = json::Document::parse("[NaN, Infinity, -Infinity, -1]", "config.json", l);
  EXPECT_TRUE(std::isnan(d.root().items()[0].as_double()));
  EXPECT_TRUE(std::isinf(d.root().items()[1].as_double()));
  EXPECT_LT(d.root().items()[2].as_double(), 0);
  EXPECT_FALSE(d.root().items()[1].as_uint());
  EXPECT_EQ(*d.root().items()[3].as_int(), -1);
  EXPECT_THROW(json::Document::parse("[Inf]", "config.json", l), Error);
  EXPECT_THROW(json::Document::parse("[NaN]", "header"), Error);
}

}  // namespace
}  // namespace ma

namespace ma {
namespace {

// The layout Python's json.dumps(indent=2) gives, strings (with escaped quotes, commas and brackets)
// untouched.
TEST(JsonWriter, IndentedJsonLaysOutOneValueALine) {
  const std::string compact = R"({"a":[1,{"b":"x,\"{]"}],"e":{},"f":[ ],"g":null})";
  EXPECT_EQ(indented_json(compact),
            "{\n"
            "  \"a\": [\n"
            "    1,\n"
            "    {\n"
            "      \"b\": \"x,\\\"{]\"\n"
            "    }\n"
            "  ],\n"
            "  \"e\": {},\n"
            "  \"f\": [],\n"
            "  \"g\": null\n"
            "}\n");
  EXPECT_NO_THROW(json::Document::parse(indented_json(compact), "indented"));
}

// A JSON string literal byte by byte, as RFC 8259 asks and Python's json.dumps(ensure_ascii=False) writes it:
// the reference the 8-bytes-at-a-time writer is held to.
std::string quoted_byte_by_byte(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// Every byte value at every position of a raw (unescaped) string of 40 bytes, where the reader skips plain
// bytes 16 and then 8 at a time: printable ASCII reads as itself, a control character or a lone byte of 0x80
// and above (not UTF-8) is refused wherever it falls, and a quote ends the string there.
TEST(Json, RawStringBytesAreJudgedAtEveryPosition) {
  for (size_t at = 0; at < 40; ++at)
    for (int b = 0; b < 256; ++b) {
      std::string s = plain_text(40);
      s[at] = static_cast<char>(b);
      const std::string doc = "[\"" + s + "\"]";
      if (b == '"') {
        expect_malformed(doc, "");
      } else if (b == '\\') {
        // It escapes the next byte: a capital is no JSON escape, and an escaped closing quote ends nothing.
        expect_malformed(doc, at + 1 < s.size() ? "escape" : "unterminated string");
      } else if (b < 0x20) {
        expect_malformed(doc, "control character");
      } else if (b >= 0x80) {
        expect_malformed(doc, "UTF-8");
      } else {
        ASSERT_EQ(parse_json(doc).root().items().at(0).as_string(), s) << "byte " << b << " at " << at;
      }
    }
}

// Every byte that needs an escape (and a two-byte UTF-8 character, which does not) at every position of
// strings of 0 to 40 bytes: inside the 16- and 8-byte blocks the writer copies whole, and in the tail it
// writes byte by byte. What it writes reads back as the string, and never exceeds its size bound.
TEST(JsonWriter, QuotedStringsMatchAByteByByteWriterAndReadBack) {
  const std::vector<std::string> specials = {"\"",   "\\",   "\n",      "\r", "\t", std::string(1, '\0'),
                                             "\x01", "\x1f", "\xc3\xa9"};
  size_t checked = 0;
  for (size_t length = 0; length <= 40; ++length)
    for (size_t at = 0; at <= length; ++at)
      for (const std::string& special : specials) {
        std::string s = plain_text(length);
        if (at < length) s.replace(at, 1, special);
        std::string written = "x";  // appended after what is there
        json::append_quoted(written, s);
        ASSERT_EQ(written, "x" + quoted_byte_by_byte(s)) << "length " << length << " at " << at;
        std::string buf(json::quoted_size_bound(s.size()), '?');
        char* end = json::write_quoted(buf.data(), s);
        EXPECT_EQ(std::string(buf.data(), end), written.substr(1));
        EXPECT_EQ(parse_json("[" + written.substr(1) + "]").root().items().at(0).as_string(), s);
        ++checked;
      }
  EXPECT_EQ(checked, 9u * (41 * 42 / 2));
  std::string controls;  // the bound is met exactly by a string of control characters
  for (char c = 1; c < 0x20; ++c)
    if (c != '\n' && c != '\r' && c != '\t') controls += c;
  std::string buf(json::quoted_size_bound(controls.size()), '?');
  EXPECT_EQ(static_cast<size_t>(json::write_quoted(buf.data(), controls) - buf.data()), buf.size());
}

}  // namespace
}  // namespace ma
