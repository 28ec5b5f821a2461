#include "core/radix_order.h"

#include <array>
#include <utility>

namespace ma {

std::vector<uint32_t> stable_radix_order(std::span<const uint64_t> keys) {
  const size_t n = keys.size();
  struct Item {
    uint64_t key;
    uint32_t index;
  };
  std::vector<Item> items(n), spare(n);
  // The bits in which some keys differ: a byte without any orders nothing and is skipped.
  uint64_t any = 0, all = ~uint64_t{0};
  for (size_t i = 0; i < n; ++i) {
    items[i] = {keys[i], static_cast<uint32_t>(i)};
    any |= keys[i];
    all &= keys[i];
  }
  const uint64_t differ = n ? any ^ all : 0;
  for (unsigned shift = 0; shift < 64; shift += 8) {
    if (((differ >> shift) & 0xff) == 0) continue;
    std::array<uint32_t, 256> first{};
    for (const Item& it : items) ++first[(it.key >> shift) & 0xff];
    uint32_t at = 0;
    for (uint32_t& slot : first) at += std::exchange(slot, at);  // each byte value's first position
    for (const Item& it : items) spare[first[(it.key >> shift) & 0xff]++] = it;
    items.swap(spare);
  }
  std::vector<uint32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = items[i].index;
  return order;
}

}  // namespace ma
