// The GGUF reader on files written here: every value type, tensor infos in row-major order, alignment, and
// every way a header can lie (the bad-input catalogue: truncation, lying lengths and counts, unknown types,
// overlaps, duplicates, nesting depth) refused with the right error kind and never a crash.
#include <gtest/gtest.h>

#include <cstring>
#include <tuple>

#include "core/error.h"
#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "gguf_test_models.h"
#include "test_support.h"

namespace ma {
namespace {

GgufFile parse(const std::string& bytes) {
  return read_gguf(MemorySource(bytes, "test.gguf"));
}

// A whole file: header, padding, data of the tensors' sizes.
std::string file_bytes(const std::vector<GgufValueToWrite>& kv, const std::vector<TensorToWrite>& tensors) {
  test::TempDir dir;
  write_gguf(dir / "m.gguf", kv, tensors);
  return test::read_file(dir / "m.gguf");
}

ErrorKind error_kind(const std::string& bytes) {
  return test::error_kind_of([&] { parse(bytes); });
}

void put(std::string& s, uint64_t v, unsigned bytes) {
  for (unsigned k = 0; k < bytes; ++k) s += static_cast<char>((v >> (8 * k)) & 0xff);
}

// A header with no tensors and these raw metadata bytes after the counts.
std::string raw_header(uint64_t n_tensors, uint64_t n_kv, const std::string& rest, uint32_t version = 3) {
  std::string s = "GGUF";
  put(s, version, 4);
  put(s, n_tensors, 8);
  put(s, n_kv, 8);
  return s + rest;
}

TEST(GgufReader, EveryValueTypeAndTensorInfo) {
  std::vector<GgufValueToWrite> kv = {
      gguf_string("general.architecture", "llama"),
      gguf_u32("llama.block_count", 32),
      gguf_u64("big", 1ull << 40),
      gguf_i32("negative", -7),
      gguf_f32("llama.rope.freq_base", 500000.0f),
      gguf_bool("flag", true),
      gguf_u32_array("per_layer", {8, 8, 4}),
      gguf_i32_array("signed", {1, -1}),
      gguf_string_array("tokenizer.ggml.tokens", {"<s>", "a", "bc"}),
  };
  std::vector<TensorToWrite> tensors = {
      {"token_embd.weight", DType::F16, {10, 64}, {}},
      {"blk.0.attn_q.weight", DType::Q8_0, {64, 64}, {}},
      {"blk.0.ffn_down.weight", DType::Q4_K, {64, 256}, {}},
  };
  const GgufFile f = parse(file_bytes(kv, tensors));
  EXPECT_EQ(f.version, 3u);
  EXPECT_EQ(f.string_value("general.architecture"), "llama");
  EXPECT_EQ(f.uint_value("llama.block_count"), 32u);
  EXPECT_EQ(f.uint_value("big"), 1ull << 40);
  EXPECT_EQ(f.uint_value("negative"), std::nullopt);  // not a count
  EXPECT_EQ(f.float_value("negative"), -7.0);
  EXPECT_EQ(f.float_value("llama.rope.freq_base"), 500000.0);
  EXPECT_EQ(f.bool_value("flag"), true);
  EXPECT_EQ(f.uint_array("per_layer"), (std::vector<uint64_t>{8, 8, 4}));
  EXPECT_EQ(f.uint_array("signed"), std::nullopt);  // a negative element
  EXPECT_EQ(f.string_array("tokenizer.ggml.tokens"), (std::vector<std::string_view>{"<s>", "a", "bc"}));
  EXPECT_EQ(f.find("missing"), nullptr);

  ASSERT_EQ(f.tensors.size(), 3u);
  // Row-major shapes (ggml's ne reversed), bytes from the type's blocks, offsets aligned to 32.
  EXPECT_EQ(f.tensors[0].shape, (Shape{10, 64}));
  EXPECT_EQ(f.tensors[0].bytes, 10u * 64 * 2);
  EXPECT_EQ(f.tensors[1].dtype, DType::Q8_0);
  EXPECT_EQ(f.tensors[1].bytes, 64u * 2 * 34);  // 64 rows of two 32-element blocks of 34 bytes
  EXPECT_EQ(f.tensors[1].offset, 1280u);
  EXPECT_EQ(f.tensors[2].bytes, 64u * 144);  // 64 rows of one 256-element Q4_K block
  EXPECT_EQ(f.tensors[2].offset, 1280u + 4352);
  EXPECT_EQ(f.data_start % 32, 0u);
  EXPECT_EQ(f.data_start, (f.header.size() + 31) / 32 * 32);
}

TEST(GgufReader, AlignmentFromMetadata) {
  const GgufFile f = parse(file_bytes({gguf_u32("general.alignment", 64)},
                                      {{"a", DType::F32, {3}, {}}, {"b", DType::F32, {3}, {}}}));
  EXPECT_EQ(f.alignment, 64u);
  EXPECT_EQ(f.tensors[1].offset, 64u);
  EXPECT_EQ(f.data_start % 64, 0u);
  EXPECT_EQ(error_kind(file_bytes({gguf_u32("general.alignment", 48)}, {})), ErrorKind::Malformed);
}

TEST(GgufReader, NestedArrays) {
  // An array of two arrays of u8: [[1, 2], [3]].
  std::string payload;
  put(payload, static_cast<uint32_t>(GgufType::Array), 4);
  put(payload, 2, 8);
  for (const std::vector<uint8_t>& inner : {std::vector<uint8_t>{1, 2}, std::vector<uint8_t>{3}}) {
    put(payload, static_cast<uint32_t>(GgufType::U8), 4);
    put(payload, inner.size(), 8);
    for (uint8_t b : inner) put(payload, b, 1);
  }
  GgufValueToWrite nested{"nested", GgufType::Array, payload};
  const GgufFile f = parse(file_bytes({nested, gguf_u32("after", 5)}, {}));
  ASSERT_NE(f.find("nested"), nullptr);
  EXPECT_EQ(f.find("nested")->count, 2u);
  EXPECT_EQ(f.find("nested")->element_type, GgufType::Array);
  EXPECT_EQ(f.uint_value("after"), 5u);  // the walk over the nested array ended where the next entry begins

  // 9 levels deep is refused (a cap, not a crash from recursion).
  std::string deep;
  for (int k = 0; k < 9; ++k) {
    put(deep, static_cast<uint32_t>(GgufType::Array), 4);
    put(deep, 1, 8);
  }
  put(deep, static_cast<uint32_t>(GgufType::U8), 4);
  put(deep, 0, 8);
  EXPECT_EQ(error_kind(file_bytes({GgufValueToWrite{"deep", GgufType::Array, deep}}, {})), ErrorKind::Limit);
}

TEST(GgufReader, EveryTruncationIsMalformed) {
  const std::string whole =
      file_bytes(test::tiny_gguf_metadata({}), test::tiny_gguf_tensors({.with_data = false}));
  const size_t header = parse(whole).header.size();
  for (size_t n = 0; n < header; ++n)
    ASSERT_EQ(error_kind(whole.substr(0, n)), ErrorKind::Malformed) << "cut at " << n;
  // Cut inside the data: the last tensor runs past the end.
  EXPECT_EQ(error_kind(whole.substr(0, whole.size() - 1)), ErrorKind::Malformed);
}

// Names are printed and written as JSON unchanged: bytes that are not UTF-8, a NUL or an escape sequence in a
// tensor's name are refused (the GGUF spec's strings are UTF-8).
TEST(GgufReader, TensorNamesMustBePlainText) {
  for (const std::string& name : {std::string("tok\xff\xfe.weight"), std::string("tok\x1b[31m.weight"),
                                  std::string("tok\0en.weight", 14)}) {
    const std::string bytes = file_bytes({}, {{name, DType::F32, {4}, std::string(16, '\0')}});
    try {
      parse(bytes);
      ADD_FAILURE() << "accepted " << printable(name);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Malformed);
      EXPECT_NE(e.message().find("the name is not UTF-8 text without control characters"), std::string::npos)
          << e.message();
    }
  }
  EXPECT_NO_THROW(parse(file_bytes({}, {{"модель.weight", DType::F32, {4}, std::string(16, '\0')}})));
}

TEST(GgufReader, VersionsAndByteOrder) {
  EXPECT_EQ(parse(raw_header(0, 0, "", 2)).version, 2u);
  EXPECT_EQ(error_kind(raw_header(0, 0, "", 1)), ErrorKind::Unsupported);
  EXPECT_EQ(error_kind(raw_header(0, 0, "", 4)), ErrorKind::Unsupported);
  EXPECT_EQ(error_kind(raw_header(0, 0, "", 0x03000000)), ErrorKind::Malformed);  // big-endian v3 (G3)
  EXPECT_EQ(error_kind("GGUX" + raw_header(0, 0, "").substr(4)), ErrorKind::Malformed);
}

TEST(GgufReader, LyingCountsAndLengths) {
  // Counts far beyond the caps, and counts the bytes left cannot hold, are refused before any allocation.
  EXPECT_EQ(error_kind(raw_header(1ull << 40, 0, "")), ErrorKind::Limit);
  EXPECT_EQ(error_kind(raw_header(0, 1ull << 40, "")), ErrorKind::Limit);
  EXPECT_EQ(error_kind(raw_header(0, 1000, "")), ErrorKind::Malformed);
  std::string key;
  put(key, 1ull << 62, 8);  // a key of 2^62 bytes in a file of a few: a lie, not a string over the cap
  EXPECT_EQ(error_kind(raw_header(0, 1, key + std::string(16, 'x'))), ErrorKind::Malformed);
  std::string arr;
  put(arr, 1, 8);
  arr += "k";
  put(arr, static_cast<uint32_t>(GgufType::Array), 4);
  put(arr, static_cast<uint32_t>(GgufType::U64), 4);
  put(arr, 1ull << 61, 8);  // 2^61 u64 elements: the byte count overflows
  EXPECT_EQ(error_kind(raw_header(0, 1, arr)), ErrorKind::Malformed);
  std::string strings = arr.substr(0, 13);
  put(strings, static_cast<uint32_t>(GgufType::String), 4);
  put(strings, 1ull << 40, 8);  // 2^40 strings in a few bytes
  EXPECT_EQ(error_kind(raw_header(0, 1, strings)), ErrorKind::Malformed);
  std::string bad_type = arr.substr(0, 9);
  put(bad_type, 13, 4);  // no value type 13
  EXPECT_EQ(error_kind(raw_header(0, 1, bad_type + std::string(8, '\0'))), ErrorKind::Malformed);
}

// A string's length is checked against the bytes left before the cap: one longer than the file is a damaged
// file (exit 3) whatever its length, and only a string that is there can be over the cap (exit 5) — for keys,
// string values and the strings of an array alike.
TEST(GgufReader, AStringPastTheEndIsMalformedBeforeItIsOverTheCap) {
  const auto message = [](const std::string& bytes, const GgufLimits& limits = {}) {
    try {
      read_gguf(MemorySource(bytes, "test.gguf"), limits);
    } catch (const Error& e) {
      return std::pair{e.kind(), e.message()};
    }
    return std::pair{ErrorKind::Internal, std::string("read")};
  };
  // Entry bytes: a key, then a value of type `type` whose bytes are `value`.
  const auto entry = [](const std::string& key, GgufType type, const std::string& value) {
    std::string s;
    put(s, key.size(), 8);
    s += key;
    put(s, static_cast<uint32_t>(type), 4);
    return s + value;
  };
  const auto string_of = [](uint64_t length, const std::string& bytes) {
    std::string s;
    put(s, length, 8);
    return s + bytes;
  };
  std::string strings;  // an array of two strings, the second one lying
  put(strings, static_cast<uint32_t>(GgufType::String), 4);
  put(strings, 2, 8);
  strings += string_of(2, "ab") + string_of(1ull << 62, "cd");

  const std::string lying_key = string_of(1ull << 62, "general.architecture") + std::string(16, '\0');
  const std::string lying_value = entry("k", GgufType::String, string_of(100, "short"));
  const std::string lying_element = entry("k", GgufType::Array, strings);
  for (const std::string& rest : {lying_key, lying_value, lying_element}) {
    const auto [kind, what] = message(raw_header(0, 1, rest));
    EXPECT_EQ(kind, ErrorKind::Malformed) << what;
    EXPECT_NE(what.find("runs past the end of the file"), std::string::npos) << what;
  }
  // Strings that are there but longer than the cap (3 bytes here): Limit, as before.
  const GgufLimits three{.max_string = 3};
  const std::string long_value = entry("k", GgufType::String, string_of(5, "hello"));
  std::string long_strings;
  put(long_strings, static_cast<uint32_t>(GgufType::String), 4);
  put(long_strings, 1, 8);
  long_strings += string_of(5, "hello");
  for (const std::string& rest :
       {entry("long-key", GgufType::U8, "x"), long_value, entry("k", GgufType::Array, long_strings)})
    EXPECT_EQ(message(raw_header(0, 1, rest), three).first, ErrorKind::Limit);
  EXPECT_EQ(message(raw_header(0, 1, entry("k", GgufType::String, string_of(3, "abc"))), three).first,
            ErrorKind::Internal);  // 3 bytes: read
}

TEST(GgufReader, DuplicateKeysAndTensors) {
  EXPECT_EQ(error_kind(file_bytes({gguf_u32("a", 1), gguf_u32("a", 2)}, {})), ErrorKind::Malformed);
  EXPECT_EQ(error_kind(file_bytes({}, {{"t", DType::F32, {4}, {}}, {"t", DType::F32, {4}, {}}})),
            ErrorKind::Malformed);
}

// Edits the first tensor info of a one-tensor file: its dims count, a dim, its type or its offset.
std::string with_tensor_info(uint32_t n_dims, uint64_t dim0, uint32_t type, uint64_t offset) {
  std::string s = raw_header(1, 0, "");
  put(s, 1, 8);
  s += "t";
  put(s, n_dims, 4);
  for (uint32_t d = 0; d < n_dims; ++d) put(s, d == 0 ? dim0 : 1, 8);
  put(s, type, 4);
  put(s, offset, 8);
  s.resize((s.size() + 31) / 32 * 32, '\0');
  return s + std::string(4096, '\0');
}

TEST(GgufReader, TensorInfoRules) {
  EXPECT_EQ(parse(with_tensor_info(1, 64, 0, 0)).tensors[0].bytes, 256u);
  EXPECT_EQ(error_kind(with_tensor_info(0, 64, 0, 0)), ErrorKind::Malformed);   // no dimensions
  EXPECT_EQ(error_kind(with_tensor_info(5, 64, 0, 0)), ErrorKind::Malformed);   // more than ggml's 4
  EXPECT_EQ(error_kind(with_tensor_info(1, 64, 4, 0)), ErrorKind::Malformed);   // a removed type (Q4_2)
  EXPECT_EQ(error_kind(with_tensor_info(1, 64, 99, 0)), ErrorKind::Malformed);  // no such type
  EXPECT_EQ(error_kind(with_tensor_info(1, 48, 8, 0)), ErrorKind::Malformed);   // 48 is not whole Q8_0 blocks
  EXPECT_EQ(error_kind(with_tensor_info(1, 64, 0, 16)), ErrorKind::Malformed);  // offset not aligned
  EXPECT_EQ(error_kind(with_tensor_info(1, 2048, 0, 0)), ErrorKind::Malformed);  // past the end of the file
  EXPECT_EQ(error_kind(with_tensor_info(4, 1ull << 62, 0, 0)), ErrorKind::Malformed);  // bytes overflow
  EXPECT_EQ(error_kind(with_tensor_info(1, 1ull << 63, 0, 0)), ErrorKind::Malformed);  // above int64
}

TEST(GgufReader, OverlappingTensorsAreRefused) {
  std::string s = raw_header(2, 0, "");
  for (const char* name : {"a", "b"}) {
    put(s, 1, 8);
    s += name;
    put(s, 1, 4);
    put(s, 64, 8);
    put(s, 0, 4);
    put(s, 0, 8);  // both at offset 0
  }
  s.resize((s.size() + 31) / 32 * 32, '\0');
  EXPECT_EQ(error_kind(s + std::string(512, '\0')), ErrorKind::Malformed);
}

// An empty tensor between two that overlap does not hide them: each is checked against the furthest end
// before it, not only its neighbour's.
TEST(GgufReader, AnEmptyTensorDoesNotHideAnOverlap) {
  std::string s = raw_header(3, 0, "");
  for (auto [name, dim, offset] : {std::tuple{"a", 64, 0}, {"z", 0, 32}, {"c", 8, 64}}) {
    put(s, 1, 8);
    s += name;
    put(s, 1, 4);
    put(s, static_cast<uint64_t>(dim), 8);
    put(s, 0, 4);  // f32
    put(s, static_cast<uint64_t>(offset), 8);
  }
  s.resize((s.size() + 31) / 32 * 32, '\0');
  EXPECT_EQ(error_kind(s + std::string(512, '\0')), ErrorKind::Malformed);  // c lies inside a's 256 bytes
}

// The spec's bools are 0 and 1 (the reliability catalogue's G10): a byte of 2 is a damaged file.
TEST(GgufReader, ABoolOtherThanZeroOrOneIsMalformed) {
  std::string kv;
  put(kv, 1, 8);
  kv += "b";
  put(kv, static_cast<uint32_t>(GgufType::Bool), 4);
  EXPECT_EQ(parse(raw_header(0, 1, kv + std::string(1, '\1'))).metadata.size(), 1u);
  EXPECT_EQ(error_kind(raw_header(0, 1, kv + std::string(1, '\2'))), ErrorKind::Malformed);
  std::string arr;  // and inside an array of bools
  put(arr, 1, 8);
  arr += "a";
  put(arr, static_cast<uint32_t>(GgufType::Array), 4);
  put(arr, static_cast<uint32_t>(GgufType::Bool), 4);
  put(arr, 3, 8);
  EXPECT_EQ(parse(raw_header(0, 1, arr + std::string("\1\0\1", 3))).metadata.size(), 1u);
  EXPECT_EQ(error_kind(raw_header(0, 1, arr + std::string("\1\2\1", 3))), ErrorKind::Malformed);
}

TEST(GgufReader, HeaderLargerThanFirstReadGrowsTheBuffer) {
  // 200,000 tokens: a ~2.5 MB header, read in more than one step.
  std::vector<std::string> tokens(200000);
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = "token" + std::to_string(i);
  const GgufFile f = parse(file_bytes({gguf_string_array("tokenizer.ggml.tokens", tokens), gguf_u32("x", 9)},
                                      {{"t", DType::F32, {4}, {}}}));
  EXPECT_GT(f.header.size(), 2u << 20);
  EXPECT_EQ(f.uint_value("x"), 9u);
  EXPECT_EQ(f.string_array("tokenizer.ggml.tokens")->back(), "token199999");
}

}  // namespace
}  // namespace ma
