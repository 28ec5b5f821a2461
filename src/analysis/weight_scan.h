// The streaming engine: reads tensor data with pread into reused per-thread buffers (never mmap: page faults
// cap a mapped scan at a third of read()'s speed on the machines we measured) and computes each tensor's
// statistics. Large tensors are split into work units shared by all threads: those of at most 16 bits are
// counted in one pass and their counts merged; 32/64-bit and block tensors run pass 1 of all their units,
// then pass 2 (analysis/wide_tensor_stats.h), which a thread takes up as soon as a tensor's pass 1 is done.
// Memory stays bounded by threads x (buffer + a thread's scratch, about 1.5 MB) + up to 5 MB per tensor
// between or in its passes, whatever the checkpoint's size (peak RSS of `stats` on a 0.49 GB Q4_K GGUF: 18 MB
// on 2 threads, 64 MB on 16).
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/block_scale.h"
#include "analysis/weight_stats.h"

namespace ma {

struct ScanItem {
  std::string name;
  std::filesystem::path file;
  uint64_t offset = 0;  // of the tensor's first byte in the file
  uint64_t bytes = 0;
  DType dtype = DType::F32;
  Shape shape;
  uint64_t numel = 0;
  // A float8 weight's scales (analysis/block_scale.h): its values are code x scale, in float32.
  std::shared_ptr<const BlockScale> scale;
  // A PyTorch view whose elements are exactly the bytes [offset, offset + bytes) but not in row-major order
  // (StoredTensor::permuted: a transpose saved as a view, torch's `.t()`). Statistics do not depend on the
  // order; whatever reads rows and columns (spectrum, embeddings) must: a 2-D one is its transpose stored
  // row-major, i.e. column-major (matrix_reader.h gathers it); the order of a wider one is not known here.
  bool permuted = false;
};

struct ScanOptions {
  double eps = 1e-6;
  uint32_t bins = 64;
  unsigned threads = 0;  // 0: one per core
  // Large tensors are split into units of this many bytes that the threads share. A two-pass tensor's
  // compensated sums are merged unit by unit, so its last bits depend on this size (never on the threads).
  uint64_t unit_bytes = 8ull << 20;
  // Called from worker threads as data is read (bytes read so far of `total`); must be thread-safe.
  std::function<void(uint64_t done, uint64_t total)> progress;
  const std::atomic<bool>* cancel = nullptr;  // set: workers stop, scan_weights throws Error(LocalIO)
};

// Statistics of every item, in item order (name, dtype, shape, numel and bytes copied from the item;
// placement left to the caller). Items must have element values (core/dtype_values.h). Throws Error on read
// failures.
std::vector<TensorStats> scan_weights(const std::vector<ScanItem>& items, const ScanOptions& options);

}  // namespace ma
