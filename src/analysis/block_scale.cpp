#include "analysis/block_scale.h"

#include <algorithm>

namespace ma {
namespace {

// The smallest power of two b with ceil(n / b) == extent, if any.
std::optional<uint64_t> block_of(uint64_t n, uint64_t extent) {
  if (n == 0 || extent == 0 || extent > n) return std::nullopt;
  for (uint64_t b = 1; b <= (uint64_t{1} << 40); b *= 2)
    if ((n + b - 1) / b == extent) return b;
  return std::nullopt;
}

}  // namespace

void BlockScale::apply(uint64_t first, float* values, size_t n) const {
  uint64_t row = first / cols, col = first % cols;
  for (size_t i = 0; i < n;) {
    // The elements of this row up to the next block boundary share one scale.
    const uint64_t block_end = std::min<uint64_t>(cols, (col / block_cols + 1) * block_cols);
    const size_t run = static_cast<size_t>(std::min<uint64_t>(n - i, block_end - col));
    const float s = scales[(row / block_rows) * grid_cols + col / block_cols];
    for (size_t k = 0; k < run; ++k) values[i + k] *= s;
    i += run;
    col += run;
    if (col == cols) {
      col = 0;
      ++row;
    }
  }
}

std::optional<ScaleGrid> scale_grid(const Shape& weight, const Shape& scale) {
  if (weight.empty() || weight.size() > 2) return std::nullopt;
  const uint64_t rows = weight.size() == 2 ? weight[0] : 1, cols = weight.back();
  uint64_t scale_numel = 1;
  for (uint64_t d : scale) scale_numel *= d;
  if (scale_numel == 1) return ScaleGrid{rows, cols, 1, 1};  // per tensor
  if (scale.size() > 2) return std::nullopt;
  // A 1-D scale over a 2-D weight is per row ([rows]); over a 1-D weight, per block of it.
  const uint64_t grid_rows = scale.size() == 2 ? scale[0] : weight.size() == 2 ? scale[0] : 1;
  const uint64_t grid_cols = scale.size() == 2 ? scale[1] : weight.size() == 2 ? 1 : scale[0];
  const std::optional<uint64_t> br = block_of(rows, grid_rows), bc = block_of(cols, grid_cols);
  if (!br || !bc) return std::nullopt;
  return ScaleGrid{*br, *bc, grid_rows, grid_cols};
}

std::vector<std::string> scale_names_for(const std::string& weight) {
  return {weight + "_scale_inv", weight + "_scale"};
}

}  // namespace ma
