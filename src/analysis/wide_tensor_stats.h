// Statistics of a 32- or 64-bit tensor (F32, F64, I32, U32, I64, U64), of a float8 weight times its scales
// (analysis/block_scale.h), or of a ggml block type's float32
// values (its level form, formats/ggml_levels.h, where it has one: each group's levels weighted by how many
// elements hold them; else decoded element by element, formats/ggml_dequant.h), read twice, a piece at a
// time. Pass 1: the sum and sum of squares, min, max, zeros, NaN/Inf, and a count per 16-bit order-preserving
// key prefix, which says where each percentile's order statistics lie. Pass 2: the central moments about pass
// 1's mean (numpy's two-pass variance), the histogram (its range is only known after pass 1) and those order
// statistics exactly — by the next 16 key bits for 32-bit types, by collecting the few values of the buckets
// concerned for 64-bit ones. For 32-bit keys the histogram comes mostly from pass 1's bucket counts: a bucket
// no bin edge cuts lies in one bin whole, and only the values of the few buckets an edge cuts are binned one
// by one. The per-value loops are in analysis/wide_stats_kernels.h.
//
// Both passes are split into units (byte ranges of whole elements or blocks) that threads work through at
// once: a quantized GGUF's largest matrix (its output, up to a gigabyte) would otherwise keep one core busy
// while the others wait. Counts merge in any order; the compensated sums of each unit are kept and merged in
// unit order, so a result depends on the unit size, never on the threads or their timing.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>

#include "analysis/block_scale.h"
#include "analysis/weight_stats.h"
#include "io/file_source.h"

namespace ma {

// A thread's working memory for the units it runs (pieces, bucket counts, bins), kept from unit to unit and
// tensor to tensor, so a unit allocates nothing. Allocated at a thread's first unit; not copyable.
class WideScanScratch {
 public:
  WideScanScratch();
  ~WideScanScratch();

 private:
  friend class WideTensorScan;
  struct Memory;
  Memory& memory();
  std::unique_ptr<Memory> memory_;
};

class WideTensorScan {
 public:
  // `s` arrives with name, dtype, shape, numel and bytes set and stays the caller's; it is complete once
  // every unit of both passes has run. Units hold at most `unit_bytes`, and at most 256 MiB (at least one
  // element or block). `scale` (a float8 weight's, or null) must outlive the scan: the values are then
  // code x scale in float32.
  WideTensorScan(TensorStats& s, double eps, uint32_t bins, uint64_t unit_bytes,
                 const BlockScale* scale = nullptr);
  ~WideTensorScan();
  WideTensorScan(const WideTensorScan&) = delete;
  WideTensorScan& operator=(const WideTensorScan&) = delete;

  size_t units() const;
  uint64_t unit_bytes(size_t unit) const;

  // One unit of a pass, reading [offset + the unit's range) of `file` through the caller's `buffer` of
  // `buffer_bytes` (a multiple of 8), in the calling thread's `scratch`. Distinct units of one pass may run
  // on different threads at once; every unit of pass 1 must have finished before pass 2's first starts.
  // `cancel` is checked before every buffer read; once it is set the call returns Cancelled and `s` is left
  // incomplete (the caller discards it).
  // PassComplete: the unit was its pass's last to end (after pass 1, pass 2 may start).
  enum class UnitEnd { Cancelled, Done, PassComplete };
  UnitEnd first_pass(size_t unit, const FileSource& file, uint64_t offset, char* buffer, size_t buffer_bytes,
                     WideScanScratch& scratch, const std::atomic<bool>* cancel);
  UnitEnd second_pass(size_t unit, const FileSource& file, uint64_t offset, char* buffer, size_t buffer_bytes,
                      WideScanScratch& scratch, const std::atomic<bool>* cancel);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ma
