// A weight file is what its first bytes say: each format's magic, not its file name, picks the reader.
#include "formats/weight_format.h"

#include <gtest/gtest.h>

#include <string>

#include "formats/safetensors_writer.h"
#include "io/byte_source.h"

namespace ma {
namespace {

using namespace std::string_literals;

WeightFormat sniff(const std::string& bytes) {
  return sniff_weight_format(MemorySource(bytes, "file"));
}

TEST(WeightFormat, EachMagicPicksItsReader) {
  std::string header = safetensors_header_json({{"w", DType::F32, {2}, std::string(8, '\0')}}, {});
  std::string st(8, '\0');
  st[0] = static_cast<char>(header.size());
  st += header + std::string(8, '\0');
  EXPECT_EQ(sniff(st), WeightFormat::Safetensors);
  EXPECT_EQ(sniff("PK\x03\x04rest of a zip"s), WeightFormat::PytorchZip);
  EXPECT_EQ(sniff("\x80\x02\x8a\x0a"s), WeightFormat::PytorchLegacy);
  EXPECT_EQ(sniff("GGUF\x03\x00\x00\x00"s), WeightFormat::Gguf);
  EXPECT_EQ(sniff("{\"not\": \"weights\"}"), WeightFormat::Unknown);
  EXPECT_EQ(sniff(""), WeightFormat::Unknown);
  // A length that does not fit the file is no safetensors header.
  EXPECT_EQ(sniff("\xff\xff\xff\x00\x00\x00\x00\x00{}"s), WeightFormat::Unknown);
}

// A header 0x80 bytes long (mod 256) starts with the byte of pickle's PROTO opcode: still safetensors.
TEST(WeightFormat, AHeaderLengthThatLooksLikeAPickleOpcodeIsSafetensors) {
  for (size_t length : {0x80u, 0x180u, 0x280u}) {
    const std::string open = "{\"__metadata__\":{\"pad\":\"", close = "\"}}";
    const std::string header = open + std::string(length - open.size() - close.size(), 'x') + close;
    ASSERT_EQ(header.size(), length);
    std::string st(8, '\0');
    st[0] = static_cast<char>(length & 0xff);
    st[1] = static_cast<char>(length >> 8);
    ASSERT_EQ(static_cast<uint8_t>(st[0]), 0x80);
    EXPECT_EQ(sniff(st + header), WeightFormat::Safetensors) << length;
  }
}

}  // namespace
}  // namespace ma
