// A stored tensor's elements as float32, read in pieces of a few MiB and decoded into place (every dtype
// with values: element types, 4-bit pairs, ggml blocks), so the raw copy never doubles the peak. What the
// commands that need a whole matrix in memory (spectrum, embeddings) share.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/element_decoder.h"
#include "analysis/weight_scan.h"
#include "io/file_source.h"

namespace ma {

// The bytes [offset, offset + length) that elements [first, first + n) of a `t` tensor take (4-bit types pack
// two per byte; block types hold whole blocks, so `first` and `n` sit on block boundaries).
std::pair<uint64_t, uint64_t> element_byte_span(DType t, uint64_t first, uint64_t n);

// Elements [first, first + count) of `item` into `out` (resized to count). Block types: `first` and `count`
// on block boundaries.
void read_elements_as_float(const FileSource& file, const ScanItem& item, uint64_t first, uint64_t count,
                            std::vector<float>& out, ElementDecoder& decoder);

}  // namespace ma
