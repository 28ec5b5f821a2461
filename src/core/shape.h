// Tensor shapes and their printing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ma {

using Shape = std::vector<uint64_t>;

// Product of dims for shapes we built or validated ourselves (never overflows for them).
inline uint64_t numel(const Shape& s) {
  uint64_t n = 1;
  for (uint64_t d : s) n *= d;
  return n;
}

// "[4096, 11008]"
std::string shape_to_string(const Shape& s);
// Python tuple form used by seed 003's CSV: "(4096, 11008)", "(64,)", "()".
std::string shape_to_python_tuple(const Shape& s);

}  // namespace ma
