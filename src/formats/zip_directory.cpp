#include "formats/zip_directory.h"

#include <algorithm>

#include "core/error.h"

namespace ma {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEnd = 0x06054b50;
constexpr uint32_t kZip64Locator = 0x07064b50, kZip64End = 0x06064b50;
constexpr uint64_t kEndSize = 22, kZip64LocatorSize = 20, kZip64EndSize = 56, kCentralSize = 46;
constexpr uint64_t kMaxComment = 0xffff, kMaxName = 4096;

uint64_t le(std::string_view b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + static_cast<size_t>(i)]);
  return v;
}

struct End {
  uint64_t entries = 0, directory_size = 0, directory_offset = 0;
};

// The end-of-central-directory record: searched backwards over the largest possible comment.
End find_end(const ByteSource& src) {
  if (src.size() < kEndSize) throw_malformed(src, "", "too short for a ZIP archive");
  const uint64_t tail_len = std::min<uint64_t>(src.size(), kEndSize + kMaxComment);
  std::string tail;
  src.read_exact(src.size() - tail_len, tail_len, tail);
  for (uint64_t i = tail_len - kEndSize + 1; i-- > 0;) {
    if (le(tail, i, 4) != kEnd) continue;
    if (i + kEndSize + le(tail, i + 20, 2) != tail_len) continue;  // its comment must end the file
    End e{le(tail, i + 10, 2), le(tail, i + 12, 4), le(tail, i + 16, 4)};
    const uint64_t end_at = src.size() - tail_len + i;
    const bool zip64 =
        e.entries == 0xffff || e.directory_size == 0xffffffff || e.directory_offset == 0xffffffff;
    if (!zip64) return e;
    if (end_at < kZip64LocatorSize) throw_malformed(src, "zip64 locator", "missing before the end record");
    std::string loc;
    src.read_exact(end_at - kZip64LocatorSize, kZip64LocatorSize, loc);
    if (le(loc, 0, 4) != kZip64Locator)
      throw_malformed(src, "zip64 locator", "missing before the end record");
    const uint64_t at = le(loc, 8, 8);
    if (at > src.size() || src.size() - at < kZip64EndSize)
      throw_malformed(src, "zip64 locator",
                      "points at offset " + std::to_string(at) + ", past the end of the file");
    std::string rec;
    src.read_exact(at, kZip64EndSize, rec);
    if (le(rec, 0, 4) != kZip64End) throw_malformed(src, "zip64 end record", "bad signature");
    return End{le(rec, 32, 8), le(rec, 40, 8), le(rec, 48, 8)};
  }
  throw_malformed(src, "", "no end-of-central-directory record: not a ZIP archive, or truncated");
}

// ZIP64 extended information (extra field 0x0001): the 64-bit values of the fields saturated at 0xffffffff,
// in the order size, compressed size, local header offset.
void apply_zip64(const ByteSource& src, std::string_view extra, ZipEntry& e, bool size64, bool comp64,
                 bool offset64) {
  for (size_t at = 0; at + 4 <= extra.size();) {
    const uint64_t id = le(extra, at, 2), len = le(extra, at + 2, 2);
    if (at + 4 + len > extra.size())
      throw_malformed(src, "entry '" + printable(e.name) + "' extra field", "runs past its end");
    if (id == 1) {
      size_t p = at + 4;
      auto next = [&](uint64_t& field) {
        if (p + 8 > at + 4 + len)
          throw_malformed(src, "entry '" + printable(e.name) + "' zip64 field", "too short");
        field = le(extra, p, 8);
        p += 8;
      };
      if (size64) next(e.size);
      if (comp64) next(e.compressed_size);
      if (offset64) next(e.local_header_offset);
      return;
    }
    at += 4 + len;
  }
  if (size64 || comp64 || offset64)
    throw_malformed(src, "entry '" + printable(e.name) + "'", "zip64 sizes without a zip64 field");
}

// Refuses what is not a stored member of plain bytes.
void check_stored(const ByteSource& src, const ZipEntry& e, const std::string& field) {
  if (e.method != 0)
    throw Error(ErrorKind::Unsupported, src.name(), field,
                "compressed member (method " + std::to_string(e.method) + "): only stored members are read");
  if (e.flags & 1)
    throw Error(ErrorKind::Unsupported, src.name(), field, "encrypted member: its bytes are not its data");
  if (e.compressed_size != e.size)
    throw_malformed(src, field, "stored member whose compressed and plain sizes differ");
}

}  // namespace

const ZipEntry* ZipDirectory::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &entries[it->second];
}

bool looks_like_zip(const ByteSource& src) {
  if (src.size() < 4) return false;
  std::string magic;
  src.read_exact(0, 4, magic);
  return le(magic, 0, 4) == kLocalHeader;
}

ZipDirectory read_zip_directory(const ByteSource& src) {
  const End end = find_end(src);
  if (end.entries > kMaxZipEntries)
    throw Error(ErrorKind::Limit, src.name(), "entries",
                std::to_string(end.entries) + " entries exceed the cap of " + std::to_string(kMaxZipEntries));
  if (end.directory_offset > src.size() || end.directory_size > src.size() - end.directory_offset)
    throw_malformed(src, "central directory", "lies outside the file");
  if (end.directory_size < end.entries * kCentralSize)
    throw_malformed(src, "central directory",
                    "too small for its " + std::to_string(end.entries) + " entries");
  std::string dir;
  src.read_exact(end.directory_offset, end.directory_size, dir);
  ZipDirectory out;
  out.entries.reserve(end.entries);
  size_t at = 0;
  for (uint64_t i = 0; i < end.entries; ++i) {
    if (at + kCentralSize > dir.size() || le(dir, at, 4) != kCentralHeader)
      throw_malformed(src, "central directory entry " + std::to_string(i), "bad signature or truncated");
    const uint64_t name_len = le(dir, at + 28, 2), extra_len = le(dir, at + 30, 2),
                   comment_len = le(dir, at + 32, 2);
    if (name_len > kMaxName)
      throw_malformed(src, "central directory entry " + std::to_string(i), "name longer than 4096 bytes");
    if (at + kCentralSize + name_len + extra_len + comment_len > dir.size())
      throw_malformed(src, "central directory entry " + std::to_string(i), "runs past the directory");
    ZipEntry e;
    e.name.assign(dir, at + kCentralSize, name_len);
    e.flags = static_cast<uint16_t>(le(dir, at + 8, 2));
    e.method = static_cast<uint16_t>(le(dir, at + 10, 2));
    e.compressed_size = le(dir, at + 20, 4);
    e.size = le(dir, at + 24, 4);
    e.local_header_offset = le(dir, at + 42, 4);
    apply_zip64(src, std::string_view(dir).substr(at + kCentralSize + name_len, extra_len), e,
                e.size == 0xffffffff, e.compressed_size == 0xffffffff, e.local_header_offset == 0xffffffff);
    if (e.local_header_offset > src.size())
      throw_malformed(src, "entry '" + printable(e.name) + "'", "starts past the end of the file");
    out.entries.push_back(std::move(e));
    at += kCentralSize + name_len + extra_len + comment_len;
  }
  out.by_name_.reserve(out.entries.size());
  // A name twice is refused: Python's zipfile (and torch.load) take the last entry, other readers the first,
  // so a second data.pkl could hide a payload from whichever reader checks the other one.
  for (size_t i = 0; i < out.entries.size(); ++i)
    if (!out.by_name_.emplace(out.entries[i].name, i).second)
      throw_malformed(src, "entry '" + printable(out.entries[i].name) + "'",
                      "appears twice in the central directory");
  return out;
}

uint64_t zip_member_data_floor(const ByteSource& src, const ZipEntry& e) {
  const std::string field = "entry '" + printable(e.name) + "'";
  check_stored(src, e, field);
  // read_zip_directory checked the offset against the file; the name is at most 4096 bytes.
  const uint64_t floor = e.local_header_offset + 30 + e.name.size();
  if (floor > src.size() || e.size > src.size() - floor)
    throw_malformed(src, field, "data runs past the end of the file");
  return floor;
}

uint64_t zip_member_data_offset(const ByteSource& src, const ZipEntry& e) {
  const std::string field = "entry '" + printable(e.name) + "'";
  check_stored(src, e, field);
  std::string local;
  src.read_exact(e.local_header_offset, 30, local);
  if (le(local, 0, 4) != kLocalHeader) throw_malformed(src, field, "local header has a bad signature");
  // The local header must name the member the directory names: one region, one name, for every reader.
  const uint64_t name_len = le(local, 26, 2);
  std::string local_name;
  if (name_len != e.name.size() || e.local_header_offset + 30 + name_len > src.size() ||
      (src.read_exact(e.local_header_offset + 30, name_len, local_name), local_name != e.name))
    throw_malformed(src, field, "local header names another member than the central directory");
  const uint64_t data = e.local_header_offset + 30 + name_len + le(local, 28, 2);
  if (data > src.size() || e.size > src.size() - data)
    throw_malformed(src, field, "data runs past the end of the file");
  return data;
}

void check_members_disjoint(const ByteSource& src, std::vector<ZipMemberData> members) {
  std::erase_if(members, [](const ZipMemberData& m) { return m.entry->size == 0; });
  std::stable_sort(members.begin(), members.end(),
                   [](const ZipMemberData& a, const ZipMemberData& b) { return a.data < b.data; });
  // Sorted by where they begin, a member overlaps an earlier one exactly when it begins before the furthest
  // end so far (zip_member_data_offset checked that data + size stays inside the file).
  const ZipMemberData* furthest = nullptr;
  auto range = [](const ZipMemberData& m) {
    return "[" + std::to_string(m.data) + ", " + std::to_string(m.data + m.entry->size) + ")";
  };
  for (const ZipMemberData& m : members) {
    if (furthest && m.data < furthest->data + furthest->entry->size)
      throw_malformed(src, "entry '" + printable(m.entry->name) + "'",
                      "its bytes " + range(m) + " overlap those of entry '" +
                          printable(furthest->entry->name) + "' " + range(*furthest) +
                          ": a zip gives every member bytes of its own");
    if (!furthest || m.data + m.entry->size > furthest->data + furthest->entry->size) furthest = &m;
  }
}

}  // namespace ma
