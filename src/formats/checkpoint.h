// A checkpoint as stored: its files and every tensor their headers (or, without shards, the index) declare.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/model_files.h"
#include "formats/safetensors_index.h"
#include "formats/stored_tensor.h"

namespace ma {

struct CheckpointFile {
  std::string name;  // relative to the model directory
  uint64_t size = 0;
  uint64_t header_length = 0;
  std::vector<std::pair<std::string, std::string>> metadata;
  // With headers: every tensor the file stores (dtype/shape/offsets exact). Index only: the names the index
  // places in this file, without shapes. Kept per file so shards read in parallel are never copied together.
  std::vector<StoredTensor> tensors;
};

struct Checkpoint {
  std::vector<CheckpointFile> files;
  bool headers_read = false;
  std::optional<SafetensorsIndex> index;
  std::string index_name;

  size_t tensor_count() const;
};

// Reads every safetensors header (in parallel across shards) and cross-checks them with the index, if any.
// With an index but none of its shards present, returns the index's names only (headers_read = false).
// Throws Error: Malformed for bad headers or index/shard disagreement, Unsafe for escaping shard paths.
Checkpoint read_checkpoint(const LocalModelFiles& files);

}  // namespace ma
