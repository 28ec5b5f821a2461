// The ZIP directory reader on archives built here byte by byte: a name the directory lists twice (a second
// data.pkl that Python's zipfile, and so torch.load, would take instead of the first), a local header that
// names another member than the directory, an encrypted member and members sharing bytes are refused; a
// well-formed archive reads.
#include "formats/zip_directory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/byte_source.h"
#include "torch_zip_writer.h"

namespace ma {
namespace {

using test::stored_zip;
using test::ZipMember;

std::string error_of(const std::string& bytes, ErrorKind& kind) {
  try {
    const MemorySource src(bytes, "a.pt");
    const ZipDirectory dir = read_zip_directory(src);
    for (const ZipEntry& e : dir.entries) zip_member_data_offset(src, e);
  } catch (const Error& e) {
    kind = e.kind();
    return e.what();
  }
  return "";
}

TEST(ZipDirectory, AWellFormedArchiveReads) {
  const std::string bytes = stored_zip({{"a/data.pkl", "pickle"}, {"a/data/0", "0123"}});
  const MemorySource src(bytes, "a.pt");
  const ZipDirectory dir = read_zip_directory(src);
  ASSERT_EQ(dir.entries.size(), 2u);
  const ZipEntry* storage = dir.find("a/data/0");
  ASSERT_NE(storage, nullptr);
  EXPECT_EQ(bytes.substr(zip_member_data_offset(src, *storage), 4), "0123");
}

TEST(ZipDirectory, ANameListedTwiceIsRefused) {
  ErrorKind kind{};
  const std::string why = error_of(stored_zip({{"a/data.pkl", "clean"}, {"a/data.pkl", "payload"}}), kind);
  EXPECT_EQ(kind, ErrorKind::Malformed);
  EXPECT_NE(why.find("entry 'a/data.pkl': appears twice in the central directory"), std::string::npos) << why;
}

TEST(ZipDirectory, ALocalHeaderNamingAnotherMemberIsRefused) {
  ErrorKind kind{};
  const std::string why = error_of(stored_zip({{"a/data.pkl", "pickle", "a/other.pkl", 0}}), kind);
  EXPECT_EQ(kind, ErrorKind::Malformed);
  EXPECT_NE(why.find("local header names another member"), std::string::npos) << why;
}

TEST(ZipDirectory, AnEncryptedMemberIsNotRead) {
  ErrorKind kind{};
  const std::string why = error_of(stored_zip({{"a/data.pkl", "pickle", "", 1}}), kind);
  EXPECT_EQ(kind, ErrorKind::Unsupported);
  EXPECT_NE(why.find("encrypted member"), std::string::npos) << why;
}

// Members whose bytes overlap: a directory entry may say its member runs on over the next one (a few
// megabytes of file stood for 5 billion parameters, every storage read again). Members side by side, and
// empty ones anywhere, share nothing.
TEST(ZipDirectory, MembersSharingBytesAreRefused) {
  // Each member's bytes follow its 30-byte local header and 3-byte name: a/0's at 33 (4 bytes, to 37), a/1's
  // at 37 + 33 = 70 (none), a/2's at 70 + 33 = 103 (4 bytes, to 107).
  auto check = [](const std::vector<ZipMember>& members) {
    const std::string bytes = stored_zip(members);
    const MemorySource src(bytes, "a.pt");
    const ZipDirectory dir = read_zip_directory(src);
    std::vector<ZipMemberData> data;
    for (const ZipEntry& e : dir.entries) data.push_back({&e, zip_member_data_offset(src, e)});
    check_members_disjoint(src, data);
  };
  EXPECT_NO_THROW(check({{"a/0", "0123"}, {"a/1", ""}, {"a/2", "4567"}}));
  // a/0 said to hold 74 bytes, 33 to 107: its own 4, then the others' headers and a/2's bytes.
  try {
    check({{"a/0", "0123", "", 0, 74}, {"a/1", ""}, {"a/2", "4567"}});
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Malformed);
    EXPECT_NE(std::string(e.what()).find(
                  "entry 'a/2': its bytes [103, 107) overlap those of entry 'a/0' [33, 107)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ma
