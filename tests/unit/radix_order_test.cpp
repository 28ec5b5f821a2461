// stable_radix_order gives std::stable_sort's order on keys that differ in one byte, in scattered bytes (the
// inventory's tensor << 32 | piece), in every byte, on many equal keys, and on none or one key.
#include "core/radix_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

namespace {

std::vector<uint32_t> stable_sorted(const std::vector<uint64_t>& keys) {
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  return order;
}

TEST(RadixOrder, IsStableSortsOrder) {
  std::mt19937_64 rng(11);
  const auto any = [&] { return rng(); };
  const auto low_byte = [&] { return 0x1234000000000000ull | (rng() & 0xff); };
  const auto tensor_piece = [&] { return ((rng() % 1100) << 32) | (rng() % 800); };
  const auto few = [&] { return rng() % 3 == 0 ? ~0ull : rng() % 4; };  // duplicates and the largest key
  for (size_t n : {0, 1, 2, 255, 256, 5000}) {
    for (const auto& draw : {std::function<uint64_t()>(any), std::function<uint64_t()>(low_byte),
                             std::function<uint64_t()>(tensor_piece), std::function<uint64_t()>(few)}) {
      std::vector<uint64_t> keys(n);
      for (uint64_t& k : keys) k = draw();
      ASSERT_EQ(ma::stable_radix_order(keys), stable_sorted(keys)) << n << " keys";
    }
  }
  const std::vector<uint64_t> same(100, 42);  // no byte differs: the index order
  EXPECT_EQ(ma::stable_radix_order(same), stable_sorted(same));
}

}  // namespace
