// The streaming engine: reads tensor data with pread into reused per-thread buffers (never mmap: page faults
// cap a mapped scan at a third of read()'s speed on the machines we measured) and computes each tensor's
// statistics. Large tensors of at most 16 bits are split into work units shared by all threads and their
// counts merged; 32/64-bit tensors are one unit each (two passes). Memory stays bounded by threads x (buffer
// + count tables) + one 512 KB total per tensor in flight, whatever the checkpoint's size.
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

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
};

struct ScanOptions {
  double eps = 1e-6;
  uint32_t bins = 64;
  unsigned threads = 0;  // 0: one per core
  // Called from worker threads as data is read (bytes read so far of `total`); must be thread-safe.
  std::function<void(uint64_t done, uint64_t total)> progress;
  const std::atomic<bool>* cancel = nullptr;  // set: workers stop, scan_weights throws Error(LocalIO)
};

// Statistics of every item, in item order (name, dtype, shape, numel and bytes copied from the item;
// placement left to the caller). Items must have element values (core/dtype_values.h). Throws Error on read
// failures.
std::vector<TensorStats> scan_weights(const std::vector<ScanItem>& items, const ScanOptions& options);

}  // namespace ma
