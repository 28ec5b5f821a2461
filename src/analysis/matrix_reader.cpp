#include "analysis/matrix_reader.h"

#include <algorithm>
#include <string>

namespace ma {
namespace {

constexpr uint64_t kPieceElements = uint64_t{1} << 22;

}  // namespace

std::pair<uint64_t, uint64_t> element_byte_span(DType t, uint64_t first, uint64_t n) {
  if (dtype_bits(t) == 4) return {first / 2, (n + 1) / 2};
  if (is_block_type(t)) return {dtype_bytes(first, t), dtype_bytes(n, t)};
  const uint64_t w = dtype_bits(t) / 8;
  return {first * w, n * w};
}

void read_elements_as_float(const FileSource& file, const ScanItem& item, uint64_t first, uint64_t count,
                            std::vector<float>& out, ElementDecoder& decoder) {
  out.resize(count);
  uint64_t step = kPieceElements;
  if (is_block_type(item.dtype)) step -= step % dtype_info(item.dtype).block_elements;
  std::string raw;
  for (uint64_t done = 0; done < count; done += step) {
    const uint64_t n = std::min(step, count - done);
    const auto [begin, len] = element_byte_span(item.dtype, first + done, n);
    file.read_exact(item.offset + begin, len, raw);
    decoder.decode(item.dtype, raw.data(), static_cast<size_t>(n), out.data() + done);
  }
}

}  // namespace ma
