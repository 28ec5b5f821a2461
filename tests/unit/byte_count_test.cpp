// count_byte agrees with std::count at every length around its 16-byte lanes and 4 KiB rounds, including
// texts where every byte matches (a lane's 8-bit sum at its most) and bytes above 0x7F.
#include "core/byte_count.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace {

TEST(CountByte, AgreesWithStdCount) {
  std::mt19937 rng(7);
  for (size_t n : {0, 1, 15, 16, 17, 255, 4079, 4080, 4081, 4096, 8161, 100000}) {
    std::string random(n, '\0'), braces(n, '{'), high(n, '\xFE');
    for (char& c : random) c = "{}\":ab\xFE"[rng() % 7];
    for (const std::string* s : {&random, &braces, &high})
      for (char c : {'{', ':', '\xFE'})
        ASSERT_EQ(ma::count_byte(*s, c), static_cast<size_t>(std::count(s->begin(), s->end(), c)))
            << "length " << n << ", byte " << static_cast<int>(static_cast<unsigned char>(c));
  }
}

}  // namespace
