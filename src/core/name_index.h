// An open-addressing hash index from names to positions in a caller's array. Eight bytes a slot (a hash tag
// and the position), no node per entry: over 45,000 tensor names it touches ~1 MB where std::unordered_map
// touches ~2.5 MB, and the tag skips almost every comparison of names that share long prefixes.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ma {

class NameIndex {
 public:
  // `name_of(context, i)` returns the name at position i; it must stay valid while the index is used.
  using NameOf = std::string_view (*)(const void* context, uint32_t i);

  NameIndex(uint32_t count, NameOf name_of, const void* context);
  std::optional<uint32_t> find(std::string_view name) const;
  // The position of an entry whose name an earlier entry already has, if the names are not unique.
  std::optional<uint32_t> first_duplicate() const { return duplicate_; }

 private:
  struct Slot {
    uint32_t tag;       // upper hash bits
    uint32_t position;  // position + 1; 0 = empty
  };
  static uint64_t hash(std::string_view s);
  void insert(uint32_t i, uint64_t h);
  NameOf name_of_;
  const void* context_;
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  std::optional<uint32_t> duplicate_;
};

}  // namespace ma
