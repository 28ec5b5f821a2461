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

}  // namespace
}  // namespace ma
