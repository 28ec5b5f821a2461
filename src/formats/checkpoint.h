// A checkpoint as stored: its files and every tensor their headers (or, without shards, the index) declare.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/gguf.h"
#include "formats/model_files.h"
#include "formats/onnx_model.h"
#include "formats/safetensors_index.h"
#include "formats/stored_tensor.h"

namespace ma {

struct CheckpointFile {
  std::string name;  // relative to the model directory
  uint64_t size = 0;
  uint64_t header_length = 0;
  uint64_t data_start = 0;  // file offset that the tensors' data_begin counts from (safetensors: 8 + header)
  std::vector<std::pair<std::string, std::string>> metadata;
  // With headers: every tensor the file stores (dtype/shape/offsets exact). Index only: the names the index
  // places in this file, without shapes. Kept per file so shards read in parallel are never copied together.
  std::vector<StoredTensor> tensors;
  // PyTorch only: tensors that are the same view of the same storage as an earlier one (tied weights stored
  // under two names), each with the earlier one's name.
  struct Tie {
    uint32_t tensor = 0;  // index into `tensors`
    std::string same_as;
  };
  std::vector<Tie> ties;
};

struct Checkpoint {
  std::string format =
      "safetensors";  // or "pytorch zip", "pytorch legacy" (formats/torch_checkpoint.h), "gguf", "onnx"
  std::vector<CheckpointFile> files;
  bool headers_read = false;
  std::vector<std::string> notes;  // what was read but is not the model's (a training checkpoint's optimizer)
  std::optional<SafetensorsIndex> index;
  // GGUF: the first part's header, whose metadata describes the model (architecture, tokenizer).
  std::shared_ptr<const GgufFile> gguf;
  // ONNX: the graph (nodes, inputs, outputs, inferred edge shapes); its initializers are the files' tensors.
  std::shared_ptr<const OnnxModel> onnx;
  std::string index_name;

  size_t tensor_count() const;
};

// Reads every safetensors header, every part of a GGUF model, or every PyTorch checkpoint's pickle
// (LocalModelFiles::weight_files, or the shards a pytorch_model.bin index names), in parallel across files,
// and cross-checks them with the index. With an index but none of its shards present, returns the index's
// names only (headers_read = false). Throws Error: Malformed for bad headers or index/shard disagreement,
// Unsafe for escaping shard paths.
Checkpoint read_checkpoint(const LocalModelFiles& files);

// Reading every tensor's values costs the bytes the tensors cover: no more than the files for safetensors,
// GGUF and ONNX (whose data ranges may not overlap), but PyTorch views share their storage and may cover it
// many times over (20,000 overlapping slices of one 4 MB tensor in a 5.7 MB file: 80 GB to read, a hang). The
// commands that read values (stats, compare, spectrum, embeddings) call this first: tensors covering more
// than kValueReadFactor times the files' bytes (plus 64 MiB) are exit 5 naming the checkpoint. Tied weights
// read twice, and views splitting a fused storage, stay far below it.
inline constexpr uint64_t kValueReadFactor = 4;
void check_value_read_budget(const LocalModelFiles& files, const Checkpoint& ck);

}  // namespace ma
