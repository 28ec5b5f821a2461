// A stored tensor's elements as float32, read in pieces of a few MiB and decoded into place (every dtype
// with values: element types, 4-bit pairs, ggml blocks), so the raw copy never doubles the peak. What the
// commands that need a whole matrix in memory (spectrum, embeddings) share. Elements come in the tensor's
// logical row-major order, also for a 2-D PyTorch view stored transposed (ScanItem::permuted), which is
// gathered from its column-major bytes.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/element_decoder.h"
#include "analysis/weight_scan.h"
#include "io/file_source.h"

namespace ma {

// The bytes [offset, offset + length) that elements [first, first + n) of a `t` tensor take (4-bit types pack
// two per byte; block types hold whole blocks, so `first` and `n` sit on block boundaries).
std::pair<uint64_t, uint64_t> element_byte_span(DType t, uint64_t first, uint64_t n);

// Why `item`'s elements cannot be read in row-major order, or "" when they can: a permuted view wider than
// 2-D, whose order on disk (its strides) the scan does not carry. Callers skip such a tensor, naming it.
std::string why_not_row_major(const ScanItem& item);

// Elements [first, first + count) of `item`, in row-major order, into `out` (resized to count). Block types:
// `first` and `count` on block boundaries. A permuted 2-D item is read whole, piece by piece, and each
// piece's elements scattered into place (the peak grows by one piece, not by a copy of the matrix). Throws
// Error(Unsupported) for an item why_not_row_major refuses.
void read_elements_as_float(const FileSource& file, const ScanItem& item, uint64_t first, uint64_t count,
                            std::vector<float>& out, ElementDecoder& decoder);

}  // namespace ma
