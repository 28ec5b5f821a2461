// Tensor shapes and their printing.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ma {

using Shape = std::vector<uint64_t>;

// The most dimensions a stored tensor may have: numpy 2's NPY_MAXDIMS; no framework builds more (torch's own
// kernels stop at 25). Every reader refuses a longer shape, so a small header cannot make a 50-million-entry
// shape that every report then copies and prints.
inline constexpr size_t kMaxTensorRank = 64;

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
