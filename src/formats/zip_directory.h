// The central directory of a ZIP archive (PyTorch's zip checkpoints: archive/data.pkl plus one member per
// storage), ZIP64 included. Only what a reader of stored (uncompressed) members needs: names, sizes and where
// each member's bytes start. Bounded like every reader of untrusted bytes: entry count, name length, and
// every offset and size checked against the file.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/byte_source.h"

namespace ma {

struct ZipEntry {
  std::string name;
  uint16_t flags = 0;   // general purpose bits: bit 0 = encrypted (not read)
  uint16_t method = 0;  // 0: stored; anything else is compressed and not read
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_header_offset = 0;
};

struct ZipDirectory {
  std::vector<ZipEntry> entries;
  // Exact name; nullptr when absent. Hashed: a checkpoint has a member per storage (46,000 for DeepSeek-V3).
  const ZipEntry* find(std::string_view name) const;

 private:
  friend ZipDirectory read_zip_directory(const ByteSource& src);
  std::unordered_map<std::string_view, size_t>
      by_name_;  // views into `entries`, filled once they are all read
};

inline constexpr uint64_t kMaxZipEntries = 1 << 20;

// True when the source starts with a local file header ("PK\3\4").
bool looks_like_zip(const ByteSource& src);

// Throws Error(Malformed) for a broken or lying directory or a name that appears twice, Error(Limit) above
// kMaxZipEntries entries.
ZipDirectory read_zip_directory(const ByteSource& src);

// Where a stored member's bytes begin (after its local header, which must carry the same name), checked to
// lie inside the source with its whole size; throws Error(Malformed) otherwise and Error(Unsupported) for a
// compressed or encrypted member.
uint64_t zip_member_data_offset(const ByteSource& src, const ZipEntry& e);

// The least offset a stored member's bytes can begin at, from the central directory alone: its local header
// holds at least 30 fixed bytes and the name. For a reader that cannot read the local headers (a file on the
// Hub, read by range requests at its two ends): checked, with the member's whole size, to lie inside the
// source, and errors as zip_member_data_offset's. Members whose true bytes are disjoint have disjoint floors.
uint64_t zip_member_data_floor(const ByteSource& src, const ZipEntry& e);

// A stored member's bytes: [data, data + entry->size), data as zip_member_data_offset returns it.
struct ZipMemberData {
  const ZipEntry* entry = nullptr;
  uint64_t data = 0;
};

// Throws Error(Malformed) naming two of `members` whose bytes overlap. A zip writer (torch.save's included)
// gives every member bytes of its own; members sharing bytes would let a small file stand for many times its
// size, every member read again by `stats`. Empty members overlap nothing.
void check_members_disjoint(const ByteSource& src, std::vector<ZipMemberData> members);

}  // namespace ma
