#include "core/byte_count.h"

#include <algorithm>
#include <cstring>

namespace ma {
namespace {
using Lanes = unsigned char __attribute__((vector_size(16)));
}  // namespace

size_t count_byte(std::string_view text, char byte) {
  const char* p = text.data();
  size_t left = text.size(), total = 0;
  Lanes wanted = {};
  wanted += static_cast<unsigned char>(byte);
  while (left >= sizeof(Lanes)) {
    // At most 255 rounds, so that no lane's 8-bit sum can wrap.
    const size_t rounds = std::min<size_t>(left / sizeof(Lanes), 255);
    Lanes sums = {};
    for (size_t r = 0; r < rounds; ++r, p += sizeof(Lanes)) {
      Lanes v;
      std::memcpy(&v, p, sizeof v);
      sums -= reinterpret_cast<Lanes>(v == wanted);  // a matching lane compares as -1 (all ones)
    }
    left -= rounds * sizeof(Lanes);
    for (size_t lane = 0; lane < sizeof(Lanes); ++lane) total += sums[lane];
  }
  for (; left > 0; --left) total += *p++ == byte;
  return total;
}

}  // namespace ma
