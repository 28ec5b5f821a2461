#include "core/name_index.h"

#include <algorithm>
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
  // Hashes are taken a batch ahead and their slots prefetched: an insert's slot is a random line of the
  // table, and waiting on each in turn made the loop one cache miss per name.
  constexpr uint32_t kBatch = 16;
  uint64_t hashes[kBatch];
  for (uint32_t first = 0; first < count; first += kBatch) {
    const uint32_t n_batch = std::min(kBatch, count - first);
    for (uint32_t k = 0; k < n_batch; ++k) {
      hashes[k] = hash(name_of_(context_, first + k));
      __builtin_prefetch(&slots_[hashes[k] & mask_], 1);
    }
    for (uint32_t k = 0; k < n_batch; ++k) insert(first + k, hashes[k]);
  }
}

void NameIndex::insert(uint32_t i, uint64_t h) {
  auto tag = static_cast<uint32_t>(h >> 32);
  for (uint64_t s = h & mask_;; s = (s + 1) & mask_) {
    Slot& slot = slots_[s];
    if (slot.position == 0) {
      slot = {tag, i + 1};
      return;
    }
    if (slot.tag == tag && name_of_(context_, slot.position - 1) == name_of_(context_, i)) {
      if (!duplicate_) duplicate_ = i;
      return;
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
