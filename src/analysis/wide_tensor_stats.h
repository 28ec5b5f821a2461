// Statistics of a 32- or 64-bit tensor (F32, F64, I32, U32, I64, U64), or of a ggml block type's float32
// values (its level form, formats/ggml_levels.h, where it has one: each group's levels weighted by how many
// elements hold them; else decoded element by element, formats/ggml_dequant.h), read twice, a piece at a
// time. Pass 1: the sum and sum of squares, min, max, zeros, NaN/Inf, and a count per 16-bit order-preserving
// key prefix, which says where each percentile's order statistics lie. Pass 2: the central moments about pass
// 1's mean (numpy's two-pass variance), the histogram (its range is only known after pass 1) and those order
// statistics exactly — by the next 16 key bits for 32-bit types, by collecting the few values of the buckets
// concerned for 64-bit ones.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "analysis/weight_stats.h"
#include "io/file_source.h"

namespace ma {

// `s` arrives with name, dtype, shape, numel and bytes set; the tensor's data is [offset, offset + bytes) of
// `file`. `buffer` is the caller's reusable read buffer of `buffer_bytes` (a multiple of 8). `cancel` is
// checked before every buffer read; once it is set the function returns with `s` incomplete (the caller
// discards it). Returns false when cancelled.
bool wide_tensor_stats(TensorStats& s, const FileSource& file, uint64_t offset, char* buffer,
                       size_t buffer_bytes, double eps, uint32_t bins, const std::atomic<bool>* cancel);

}  // namespace ma
