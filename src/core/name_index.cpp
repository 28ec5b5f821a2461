#include "core/name_index.h"

#include <algorithm>
#include <cstring>

namespace ma {

namespace {

uint64_t word_at(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

uint32_t half_word_at(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

}  // namespace

uint64_t NameIndex::hash(std::string_view s) {
  // Multiply-xorshift over 8-byte words: tensor names share long prefixes, so every byte must count. Two
  // words a round on two independent lanes, so their multiplies overlap; the last bytes are read as words
  // that end at the name's end (overlapping what came before), never copied out byte by byte.
  const char* p = s.data();
  const char* const end = p + s.size();
  const size_t n = s.size();
  uint64_t a = 0x9E3779B97F4A7C15ull ^ n, b = 0xC2B2AE3D27D4EB4Full;
  if (n > 16) {
    for (; end - p > 16; p += 16) {
      a = (a ^ word_at(p)) * 0xBF58476D1CE4E5B9ull;
      b = (b ^ word_at(p + 8)) * 0x94D049BB133111EBull;
      a ^= a >> 31;
      b ^= b >> 29;
    }
    a ^= word_at(end - 16);  // the last 1 to 16 bytes, in the two words that end the name
    b ^= word_at(end - 8);
  } else if (n >= 8) {
    a ^= word_at(p);
    b ^= word_at(end - 8);
  } else if (n >= 4) {
    a ^= half_word_at(p);
    b ^= half_word_at(end - 4);
  } else if (n > 0) {
    a ^= static_cast<uint64_t>(static_cast<unsigned char>(p[0])) << 16 |
         static_cast<uint64_t>(static_cast<unsigned char>(p[n / 2])) << 8 |
         static_cast<unsigned char>(p[n - 1]);
  }
  uint64_t h = (a * 0xBF58476D1CE4E5B9ull) ^ (b * 0x94D049BB133111EBull);
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  return h ^ (h >> 32);
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
