// The safetensors header reader against the catalogue of bad inputs (reference/anchors-reliability.md §8.1,
// rows S1-S27): every malformed file is one clear error of the right kind, naming the file and the tensor;
// valid edge cases are accepted.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "core/error.h"
#include "formats/safetensors.h"
#include "formats/safetensors_writer.h"
#include "test_support.h"

namespace ma {
namespace {

using test::le64;

// A file made of the 8-byte prefix, `header` and `data_bytes` zero bytes.
std::string file_bytes(const std::string& header, uint64_t data_bytes) {
  return le64(header.size()) + header + std::string(data_bytes, '\0');
}

class HeaderTest : public ::testing::Test {
 protected:
  test::TempDir dir;
  // Writes the bytes and reads them back; returns the error it raised (kind + message) or nullopt.
  std::optional<Error> read_error(const std::string& bytes) {
    auto p = dir / "model.safetensors";
    test::write_file(p, bytes);
    try {
      read_safetensors_header(p.string());
    } catch (const Error& e) {
      return e;
    }
    return std::nullopt;
  }
  void expect_error(const std::string& bytes, ErrorKind kind, const std::string& needle) {
    auto e = read_error(bytes);
    ASSERT_TRUE(e.has_value()) << "accepted a bad file, expected: " << needle;
    EXPECT_EQ(e->kind(), kind) << e->what();
    EXPECT_NE(std::string(e->what()).find(needle), std::string::npos) << e->what();
    EXPECT_NE(std::string(e->what()).find("model.safetensors"), std::string::npos)
        << "error must name the file: " << e->what();
  }
};

const std::string kOne = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";

TEST_F(HeaderTest, AcceptsAValidFile) {
  test::write_file(dir / "model.safetensors", file_bytes(kOne, 8));
  SafetensorsHeader h = read_safetensors_header((dir / "model.safetensors").string());
  ASSERT_EQ(h.tensors.size(), 1u);
  EXPECT_EQ(h.tensors[0].name, "a");
  EXPECT_EQ(h.tensors[0].numel, 2u);
  EXPECT_EQ(h.tensors[0].bytes(), 8u);
}

// Entries spelled as every writer spells them take a fast path (formats/safetensors.cpp,
// read_canonical_entry); any other spelling the general reader. Each entry here, spelled both ways (the
// second with spaces and its fields reordered), reads to the same tensor or fails with the same error.
TEST_F(HeaderTest, CanonicalAndOtherSpellingsReadAlike) {
  struct Entry {
    std::string dtype, shape, offsets;
    uint64_t data;
  };
  const std::vector<Entry> entries = {
      {"F32", "[2,3]", "[0,24]", 24},
      {"BF16", "[]", "[0,2]", 2},
      {"U8", "[0]", "[0,0]", 0},
      {"F16", "[1,1,1,1,1,1,1,1]", "[0,2]", 2},      // rank 8: the fast path's limit
      {"F16", "[1,1,1,1,1,1,1,1,1]", "[0,2]", 2},    // rank 9: the general path
      {"I64", "[9999999999999999999]", "[0,8]", 8},  // 19 digits: overflows the byte count
      {"U8", "[18446744073709551616]", "[0,4]", 4},  // 20 digits: not a 64-bit integer
      {"U8", "[02]", "[0,2]", 2},                    // a leading zero is not JSON
      {"U8", "[2]", "[0,2.0]", 2},
      {"U8", "[-2]", "[0,2]", 2},
      {"Q9", "[2]", "[0,2]", 2},
      {"F32", "[2]", "[8,0]", 8},
      {"F32", "[2]", "[0,7]", 7},
      {"B\\u0046", "[2]", "[0,2]", 2},  // an escape in the dtype name
  };
  for (const Entry& e : entries) {
    const std::string canonical =
        R"({"w":{"dtype":")" + e.dtype + R"(","shape":)" + e.shape + R"(,"data_offsets":)" + e.offsets + "}}";
    const std::string other = R"({"w": { "shape" : )" + e.shape + R"(, "data_offsets": )" + e.offsets +
                              R"(, "dtype" : ")" + e.dtype + "\" } }";
    std::vector<std::optional<Error>> errors;
    std::vector<SafetensorsHeader> headers;
    for (const std::string& header : {canonical, other}) {
      const std::string bytes = file_bytes(header, e.data);
      errors.push_back(read_error(bytes));
      if (!errors.back()) headers.push_back(read_safetensors_header((dir / "model.safetensors").string()));
    }
    ASSERT_EQ(errors[0].has_value(), errors[1].has_value()) << canonical;
    if (errors[0]) {
      EXPECT_EQ(errors[0]->kind(), errors[1]->kind()) << canonical;
      EXPECT_EQ(errors[0]->rule(), errors[1]->rule()) << canonical;
      continue;
    }
    const StoredTensor &a = headers[0].tensors.at(0), &b = headers[1].tensors.at(0);
    EXPECT_EQ(a.dtype, b.dtype) << canonical;
    EXPECT_EQ(a.shape, b.shape) << canonical;
    EXPECT_EQ(a.numel, b.numel) << canonical;
    EXPECT_EQ(a.data_begin, b.data_begin) << canonical;
    EXPECT_EQ(a.data_end, b.data_end) << canonical;
  }
}

TEST_F(HeaderTest, S1_TooSmall) {
  for (size_t n : {0, 1, 7}) expect_error(std::string(n, 'x'), ErrorKind::Malformed, "too small");
}

TEST_F(HeaderTest, S2_HeaderLengthOverCapBeforeAllocating) {
  expect_error(le64(0xFFFFFFFFFFFFFFFFull) + "{}", ErrorKind::Limit, "exceeds the cap");
  expect_error(le64(100'000'001) + "{}", ErrorKind::Limit, "exceeds the cap");
}

TEST_F(HeaderTest, S3_LengthThatWouldWrap) {
  expect_error(le64(0xFFFFFFFFFFFFFFF8ull) + "{}", ErrorKind::Limit, "cap");
}

TEST_F(HeaderTest, S4_HeaderPastEndOfFile) {
  expect_error(le64(1000) + kOne, ErrorKind::Malformed, "extends past the end of the file");
}

TEST_F(HeaderTest, S5_LfsPointerAndHtmlAreNamed) {
  expect_error("version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 123\n", ErrorKind::Malformed,
               "Git LFS pointer");
  expect_error("<!DOCTYPE html><html><body>Not found</body></html>", ErrorKind::Malformed, "HTML page");
}

TEST_F(HeaderTest, S6_NotUtf8) {
  expect_error(file_bytes("{\"a\xff\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0),
               ErrorKind::Malformed, "UTF-8");
}

TEST_F(HeaderTest, S7_NotJsonOrNulPadded) {
  expect_error(file_bytes("{", 0), ErrorKind::Malformed, "JSON");
  expect_error(file_bytes(kOne + std::string(3, '\0'), 8), ErrorKind::Malformed, "trailing");
}

// The byte a JSON error names is the file's: the header starts after the 8-byte length, so a missing comma
// before "shape" is reported where that key's quote is in the file.
TEST_F(HeaderTest, AJsonErrorNamesTheFilesByte) {
  const std::string header = R"({"a":{"dtype":"F32" "shape":[2],"data_offsets":[0,8]}})";
  const std::string bytes = file_bytes(header, 8);
  const std::optional<Error> e = read_error(bytes);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->field(), "JSON");
  ASSERT_TRUE(e->offset());
  EXPECT_EQ(*e->offset(), bytes.find("\"shape\"")) << e->what();
}

TEST_F(HeaderTest, S8_HeaderMustBeAnObject) {
  for (const char* h : {"[]", "\"x\"", "null", "123"})
    expect_error(file_bytes(h, 0), ErrorKind::Malformed, "JSON object");
}

TEST_F(HeaderTest, S9_WhitespacePaddingAccepted) {
  test::write_file(dir / "model.safetensors", file_bytes("\t\n" + kOne + "    ", 8));
  EXPECT_EQ(read_safetensors_header((dir / "model.safetensors").string()).tensors.size(), 1u);
}

TEST_F(HeaderTest, S10_DeepNestingIsAnErrorNotAStackOverflow) {
  // Unknown fields are skipped, but never by unbounded recursion.
  std::string deep = R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":)" +
                     std::string(100000, '[') + std::string(100000, ']') + "}}";
  expect_error(file_bytes(deep, 0), ErrorKind::Malformed, "nesting");
  std::string meta = "{\"__metadata__\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  expect_error(file_bytes(meta, 0), ErrorKind::Malformed, "must be an object of strings");
}

TEST_F(HeaderTest, S11_UnknownDtype) {
  for (const char* d : {"F128", "f16", "Q4_0", ""})
    expect_error(
        file_bytes(std::string(R"({"w":{"dtype":")") + d + R"(","shape":[1],"data_offsets":[0,1]}})", 1),
        ErrorKind::Malformed, "unknown dtype");
}

// The reader remembers the previous entry's dtype by its spelling: an entry after others is still checked.
TEST_F(HeaderTest, S11_UnknownDtypeAfterKnownOnes) {
  for (const char* d : {"F128", ""})
    expect_error(file_bytes(std::string(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)") +
                                R"("b":{"dtype":")" + d + R"(","shape":[1],"data_offsets":[4,5]}})",
                            5),
                 ErrorKind::Malformed, "unknown dtype");
}

TEST_F(HeaderTest, MixedDtypesAreEachEntrysOwn) {
  const std::string header =
      R"({"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],)"
      R"("data_offsets":[4,8]},"c":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]},)"
      R"("d":{"dtype":"U8","shape":[4],"data_offsets":[12,16]}})";
  const SafetensorsHeader h = parse_safetensors_bytes(file_bytes(header, 16), "mixed.safetensors");
  ASSERT_EQ(h.tensors.size(), 4u);
  EXPECT_EQ(h.tensors[0].dtype, DType::BF16);
  EXPECT_EQ(h.tensors[1].dtype, DType::F32);
  EXPECT_EQ(h.tensors[2].dtype, DType::BF16);
  EXPECT_EQ(h.tensors[3].dtype, DType::U8);
}

TEST_F(HeaderTest, S12_EveryDtypeHasItsExactSize) {
  // One tensor of 8 elements per dtype: bytes = 8 * bits / 8.
  std::vector<TensorToWrite> tensors;
  for (int i = 0; i <= static_cast<int>(DType::F6_E3M2); ++i) {
    auto d = static_cast<DType>(i);
    tensors.push_back({std::string(dtype_info(d).name), d, {8}, std::string(dtype_bits(d), '\x01')});
  }
  write_safetensors(dir / "all.safetensors", tensors);
  SafetensorsHeader h = read_safetensors_header((dir / "all.safetensors").string());
  ASSERT_EQ(h.tensors.size(), tensors.size());
  for (const StoredTensor& t : h.tensors) EXPECT_EQ(t.bytes(), dtype_bits(t.dtype)) << t.name;
}

TEST_F(HeaderTest, S13_SubByteTensorMustEndOnAByte) {
  expect_error(file_bytes(R"({"w":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2),
               ErrorKind::Malformed, "byte boundary");
}

TEST_F(HeaderTest, S14_ShapeOverflow) {
  expect_error(
      file_bytes(R"({"w":{"dtype":"F32","shape":[2,18446744073709551614],"data_offsets":[0,8]}})", 8),
      ErrorKind::Malformed, "overflows");
  expect_error(file_bytes(R"({"w":{"dtype":"I32","shape":[2,9223372036854775807],"data_offsets":[0,8]}})", 8),
               ErrorKind::Malformed, "overflows");
}

TEST_F(HeaderTest, S15_BadDimsAndOffsets) {
  for (const char* shape : {"[-1]", "[1.5]", "[\"4\"]"})
    expect_error(
        file_bytes(std::string(R"({"w":{"dtype":"U8","shape":)") + shape + R"(,"data_offsets":[0,4]}})", 4),
        ErrorKind::Malformed, "tensor 'w'");
  for (const char* off : {"[0]", "[0,4,8]"})
    expect_error(file_bytes(std::string(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":)") + off + "}}", 4),
                 ErrorKind::Malformed, "data_offsets");
}

TEST_F(HeaderTest, S16_EndBeforeBegin) {
  expect_error(file_bytes(R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[16,8]}})", 16),
               ErrorKind::Malformed, "before begin");
}

TEST_F(HeaderTest, S17_HoleAndOverlap) {
  expect_error(file_bytes(R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})", 12),
               ErrorKind::Malformed, "hole");
  expect_error(
      file_bytes(
          R"({"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
          8),
      ErrorKind::Malformed, "overlaps");
}

TEST_F(HeaderTest, S18_ManyTensorsOnOneRange) {
  std::string h = "{";
  for (int i = 0; i < 10000; ++i)
    h += (i ? "," : "") + std::string("\"t") + std::to_string(i) +
         R"(":{"dtype":"U8","shape":[16],"data_offsets":[0,16]})";
  expect_error(file_bytes(h + "}", 16), ErrorKind::Malformed, "overlaps");
}

TEST_F(HeaderTest, S19_DeclaredBytesDisagreeWithShape) {
  expect_error(file_bytes(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,16]}})", 16),
               ErrorKind::Malformed, "implies 4");
}

TEST_F(HeaderTest, S20_TrailingOrMissingBytes) {
  expect_error(file_bytes(kOne, 9), ErrorKind::Malformed, "trailing bytes");
  expect_error(file_bytes(kOne, 4), ErrorKind::Malformed, "truncated");
}

TEST_F(HeaderTest, S21_MetadataValuesMustBeStrings) {
  expect_error(file_bytes(R"({"__metadata__":{"a":1}})", 0), ErrorKind::Malformed, "must be strings");
  expect_error(file_bytes(R"({"__metadata__":{"a":{"b":"c"}}})", 0), ErrorKind::Malformed, "must be strings");
}

TEST_F(HeaderTest, S22_TensorNamedMetadataIsRejected) {
  expect_error(file_bytes(R"({"__metadata__":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}})", 0),
               ErrorKind::Malformed, "must be strings");
}

TEST_F(HeaderTest, S23_DuplicateNames) {
  expect_error(
      file_bytes(
          R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"w":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}})",
          8),
      ErrorKind::Malformed, "duplicate tensor name");
}

TEST_F(HeaderTest, S24_SharedRangeIsRejected) {
  expect_error(
      file_bytes(
          R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})",
          4),
      ErrorKind::Malformed, "overlaps");
}

TEST_F(HeaderTest, S25_ZeroSizeAndScalarAccepted) {
  test::write_file(
      dir / "model.safetensors",
      file_bytes(
          R"({"z":{"dtype":"F32","shape":[2,0],"data_offsets":[0,0]},"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})",
          4));
  SafetensorsHeader h = read_safetensors_header((dir / "model.safetensors").string());
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.tensors[0].numel, 0u);
  EXPECT_EQ(h.tensors[1].numel, 1u);
}

TEST_F(HeaderTest, HighRankShapesAreKeptWhole) {
  // More dimensions than the reader's stack buffer holds (8): all of them must survive.
  std::vector<TensorToWrite> tensors = {
      {"t", DType::U8, {1, 2, 1, 3, 1, 1, 2, 1, 1, 2, 1}, std::string(24, '\0')}};
  write_safetensors(dir / "rank.safetensors", tensors);
  SafetensorsHeader h = read_safetensors_header((dir / "rank.safetensors").string());
  ASSERT_EQ(h.tensors.size(), 1u);
  EXPECT_EQ(h.tensors[0].shape, (Shape{1, 2, 1, 3, 1, 1, 2, 1, 1, 2, 1}));
  EXPECT_EQ(h.tensors[0].numel, 24u);
}

TEST_F(HeaderTest, ShapesPastTheRankCapAreRefused) {
  // 64 dimensions of 1 are read; 65 are not, so a small header cannot hold a shape of millions of entries
  // that every report would copy and print (a 100 MB header held one of 50 million: 1.6 GB and 10 s).
  const auto shape_of = [](size_t rank) {
    std::string s = "[";
    for (size_t i = 0; i < rank; ++i) s += i ? ",1" : "1";
    return s + "]";
  };
  for (const char* spacing : {"", " "}) {  // the canonical spelling and the general reader's
    const std::string head = std::string(R"({"w":{"dtype":"U8",)") + spacing + R"("shape":)";
    test::write_file(dir / "model.safetensors",
                     file_bytes(head + shape_of(kMaxTensorRank) + R"(,"data_offsets":[0,1]}})", 1));
    EXPECT_EQ(read_safetensors_header((dir / "model.safetensors").string()).tensors.at(0).shape.size(),
              kMaxTensorRank);
    expect_error(file_bytes(head + shape_of(kMaxTensorRank + 1) + R"(,"data_offsets":[0,1]}})", 1),
                 ErrorKind::Malformed, "more than 64 dimensions");
  }
}

TEST_F(HeaderTest, NamesWithControlCharactersAreRefused) {
  // An escaped ESC, newline or NUL (JSON forbids them raw), a raw DEL and a raw C1 control (U+009B, CSI):
  // each would reach the console unchanged. Names in other scripts are plain text and are kept.
  for (const char* name : {R"(a\u001b[31mred)", R"(a\nb)", R"(a\u0000b)", "a\x7f", "a\xc2\x9b"})
    expect_error(
        file_bytes(std::string(R"({")") + name + R"(":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1),
        ErrorKind::Malformed, "without control characters");
  test::write_file(dir / "model.safetensors",
                   file_bytes(R"({"\u00e9t\u00e9.w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                              "\"\xe5\x9d\x97.w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
                              2));
  const SafetensorsHeader h = read_safetensors_header((dir / "model.safetensors").string());
  EXPECT_EQ(h.tensors.at(0).name, "\xc3\xa9t\xc3\xa9.w");
  EXPECT_EQ(h.tensors.at(1).name, "\xe5\x9d\x97.w");
}

TEST_F(HeaderTest, S26_ManyTensorsParseInBoundedTime) {
  std::vector<TensorToWrite> tensors;
  for (int i = 0; i < 200000; ++i) tensors.push_back({"t." + std::to_string(i), DType::U8, {1}, {}});
  write_safetensors(dir / "many.safetensors", tensors);
  EXPECT_EQ(read_safetensors_header((dir / "many.safetensors").string()).tensors.size(), 200000u);
}

TEST_F(HeaderTest, S27_FileIsNotMappedSoTruncationIsAnError) {
  // The reader uses pread: a header promising more bytes than remain is an error, never a SIGBUS.
  std::string bytes = file_bytes(kOne, 8);
  expect_error(bytes.substr(0, bytes.size() - 3), ErrorKind::Malformed, "truncated");
}

TEST_F(HeaderTest, WriterRoundTripsThroughTheReader) {
  std::vector<TensorToWrite> tensors = {{"b", DType::BF16, {3, 5}, std::string(30, '\x02')},
                                        {"a", DType::F32, {7}, std::string(28, '\x03')}};
  write_safetensors(dir / "rt.safetensors", tensors, {{"format", "pt"}});
  SafetensorsHeader h = read_safetensors_header((dir / "rt.safetensors").string());
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.tensors[0].name, "b");
  EXPECT_EQ(h.tensors[0].shape, (Shape{3, 5}));
  EXPECT_EQ(h.tensors[1].dtype, DType::F32);
  ASSERT_EQ(h.metadata.size(), 1u);
  EXPECT_EQ(h.metadata[0].second, "pt");
  EXPECT_EQ(h.data_offset() % 8, 0u) << "header padded to 8 bytes like the reference writer";
}

}  // namespace
}  // namespace ma
