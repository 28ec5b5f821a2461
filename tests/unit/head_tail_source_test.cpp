// The two ends of a remote file as a reader sees them (io/byte_source.h): a read inside either end, or
// anywhere once they meet, is served; a read of the gap between them asks for exactly its bytes; a read past
// the file is malformed, as from any source. Packed into one string (as a fetched header is held and cached),
// the ends come back as they were, and a string that is not such a pair is refused.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "io/byte_source.h"

namespace ma {
namespace {

const std::string kFile = "0123456789abcdefghij";  // 20 bytes

std::string read(const ByteSource& src, uint64_t offset, uint64_t len) {
  std::string out;
  src.read_exact(offset, len, out);
  return out;
}

TEST(HeadTailSource, ServesEachEndAndAsksForTheGap) {
  const HeadTailSource src(std::string_view(kFile).substr(0, 5), std::string_view(kFile).substr(15), 20, "f");
  EXPECT_EQ(src.size(), 20u);
  EXPECT_EQ(src.available(), 5u);
  EXPECT_EQ(read(src, 0, 5), "01234");
  EXPECT_EQ(read(src, 2, 2), "23");
  EXPECT_EQ(read(src, 15, 5), "fghij");
  EXPECT_EQ(read(src, 19, 1), "j");
  EXPECT_EQ(read(src, 20, 0), "");
  for (const auto& [offset, len] : {std::pair<uint64_t, uint64_t>{3, 4}, {5, 1}, {10, 6}, {0, 20}}) {
    try {
      read(src, offset, len);
      ADD_FAILURE() << offset << "+" << len << " served";
    } catch (const BytesNotFetched& more) {
      EXPECT_EQ(more.begin, offset);
      EXPECT_EQ(more.end, offset + len);
    }
  }
  EXPECT_THROW(read(src, 18, 3), Error) << "past the end of the file";
}

TEST(HeadTailSource, EndsThatMeetServeEveryRead) {
  const HeadTailSource src(std::string_view(kFile).substr(0, 12), std::string_view(kFile).substr(8), 20, "f");
  EXPECT_EQ(read(src, 0, 20), kFile);
  EXPECT_EQ(read(src, 10, 5), "abcde");
  EXPECT_EQ(read(src, 11, 2), "bc");
}

TEST(HeadTailSource, AnEndLongerThanTheFileIsRefused) {
  EXPECT_THROW(HeadTailSource(kFile, "", 19, "f"), Error);
  EXPECT_THROW(HeadTailSource("", kFile, 19, "f"), Error);
}

TEST(PackedEnds, ComeBackAsTheyWereAndAnythingElseIsRefused) {
  const std::string packed = pack_head_tail("head", "tail!");
  EXPECT_EQ(packed.size(), 4u + 5u + 16u);
  const std::optional<HeadAndTail> ends = unpack_head_tail(packed);
  ASSERT_TRUE(ends);
  EXPECT_EQ(ends->head, "head");
  EXPECT_EQ(ends->tail, "tail!");
  const std::optional<HeadAndTail> empty = unpack_head_tail(pack_head_tail("", ""));
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->head.empty() && empty->tail.empty());
  EXPECT_FALSE(unpack_head_tail(""));
  EXPECT_FALSE(unpack_head_tail(packed.substr(0, packed.size() - 1))) << "cut short";
  EXPECT_FALSE(unpack_head_tail(packed.substr(1))) << "a byte short of its lengths";
  EXPECT_FALSE(unpack_head_tail("x" + packed)) << "a byte more than its lengths";
  std::string lying = packed;
  lying[packed.size() - 16] = 100;  // a head longer than the bytes
  EXPECT_FALSE(unpack_head_tail(lying));
}

}  // namespace
}  // namespace ma
