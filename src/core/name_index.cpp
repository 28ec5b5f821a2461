#include "core/name_index.h"

#include <cstring>

namespace ma {

uint64_t NameIndex::hash(std::string_view s) {
  // Multiply-xorshift over 8-byte words: tensor names share long prefixes, so every byte must count.
  uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  h = (h ^ tail) * 0x94D049BB133111EBull;
  return h ^ (h >> 29);
}

NameIndex::NameIndex(uint32_t count, NameOf name_of, const void* context)
    : name_of_(name_of), context_(context) {
  uint64_t size = 16;
  while (size < uint64_t{count} * 2) size <<= 1;  // load factor <= 0.5
  slots_.assign(size, Slot{0, 0});
  mask_ = size - 1;
  for (uint32_t i = 0; i < count; ++i) {
    std::string_view n = name_of_(context_, i);
    uint64_t h = hash(n);
    auto tag = static_cast<uint32_t>(h >> 32);
    for (uint64_t s = h & mask_;; s = (s + 1) & mask_) {
      Slot& slot = slots_[s];
      if (slot.position == 0) {
        slot = {tag, i + 1};
        break;
      }
      if (slot.tag == tag && name_of_(context_, slot.position - 1) == n) {
        if (!duplicate_) duplicate_ = i;
        break;
      }
    }
  }
}

std::optional<uint32_t> NameIndex::find(std::string_view name) const {
  uint64_t h = hash(name);
  auto tag = static_cast<uint32_t>(h >> 32);
  for (uint64_t s = h & mask_;; s = (s + 1) & mask_) {
    const Slot& slot = slots_[s];
    if (slot.position == 0) return std::nullopt;
    if (slot.tag == tag && name_of_(context_, slot.position - 1) == name) return slot.position - 1;
  }
}

}  // namespace ma
