#include "analysis/matrix_reader.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace ma {
namespace {

constexpr uint64_t kPieceElements = uint64_t{1} << 22;

// A 2-D view stored transposed (ScanItem::permuted): its bytes hold the columns one after another, element
// (i, j) of the rows x cols matrix at position j * rows + i. The whole stored tensor is read in pieces and
// the elements in [first, first + count) (row-major positions) scattered into `out`.
void gather_column_major(const FileSource& file, const ScanItem& item, uint64_t first, uint64_t count,
                         std::vector<float>& out, ElementDecoder& decoder) {
  const uint64_t rows = item.shape[0], cols = item.shape[1], numel = rows * cols;
  std::vector<float> piece;
  std::string raw;
  for (uint64_t done = 0; done < numel; done += kPieceElements) {
    const uint64_t n = std::min(kPieceElements, numel - done);
    const auto [begin, len] = element_byte_span(item.dtype, done, n);
    file.read_exact(item.offset + begin, len, raw);
    piece.resize(n);
    decoder.decode(item.dtype, raw.data(), static_cast<size_t>(n), piece.data());
    uint64_t j = done / rows, i = done % rows;  // the stored position `done` is element (i, j)
    for (uint64_t s = 0; s < n; ++s) {
      const uint64_t at = i * cols + j;
      if (at >= first && at - first < count) out[at - first] = piece[s];
      if (++i == rows) {
        i = 0;
        ++j;
      }
    }
  }
}

}  // namespace

std::pair<uint64_t, uint64_t> element_byte_span(DType t, uint64_t first, uint64_t n) {
  if (dtype_bits(t) == 4) return {first / 2, (n + 1) / 2};
  if (is_block_type(t)) return {dtype_bytes(first, t), dtype_bytes(n, t)};
  const uint64_t w = dtype_bits(t) / 8;
  return {first * w, n * w};
}

std::string why_not_row_major(const ScanItem& item) {
  if (!item.permuted || item.shape.size() == 2) return "";
  return "a " + std::to_string(item.shape.size()) +
         "-D view whose elements are not in row-major order on disk (a permuted PyTorch view; its order is "
         "not known here)";
}

void read_elements_as_float(const FileSource& file, const ScanItem& item, uint64_t first, uint64_t count,
                            std::vector<float>& out, ElementDecoder& decoder) {
  out.resize(count);
  if (item.permuted) {
    if (const std::string why = why_not_row_major(item); !why.empty())
      throw Error(ErrorKind::Unsupported, item.file.string(), tensor_field(item.name), why);
    gather_column_major(file, item, first, count, out, decoder);
    return;
  }
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
