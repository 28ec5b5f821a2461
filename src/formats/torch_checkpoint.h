// PyTorch pickled checkpoints (torch.save): the zip format (archive/data.pkl + archive/data/<key>, torch >=
// 1.6) and the legacy one (a magic number, then pickles, then the storages back to back). Read with the
// restricted unpickler (pickle_machine.h): a disallowed global is refused with Error(Unsafe) and never run.
// Every tensor reachable from the saved object is listed by its dotted path; the model's own are those of
// the state dict (the saved dict itself, or the dict of a training checkpoint that holds the most tensors:
// "model_state_dict", Lightning's "state_dict").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "io/byte_source.h"

namespace ma {

struct TorchCheckpointTensor {
  std::string path;  // dotted, from the saved object ("model_state_dict.model.embed_tokens.weight")
  DType dtype = DType::F32;
  Shape shape;
  std::vector<uint64_t> stride;
  uint64_t storage_offset = 0;  // elements
  std::string storage_key;
  uint64_t storage_numel = 0;
  // Absolute file offset of element [0, ..., 0]; read with TorchRead::Layout, where the file offsets of
  // the storages are not read, its offset from its storage's first byte.
  uint64_t data_begin = 0;
  bool contiguous = true;  // row-major without gaps: its bytes are [data_begin, data_begin + numel x size)
  bool dense = true;       // those bytes hold exactly its elements, maybe in another order (a transpose)
  bool shares_storage = false;  // a tensor listed earlier uses the same storage (tied weights, views)
  bool tied = false;            // ... and is the same view of it: the same tensor under a second name
};

struct TorchCheckpoint {
  std::string format;                          // "pytorch zip" or "pytorch legacy"
  std::vector<TorchCheckpointTensor> tensors;  // in the order the pickle builds them
  std::string state_dict_path;                 // "" when the saved object is the state dict itself
  uint64_t storage_bytes = 0;                  // every storage once
};

// What makes two tensors the same view: their storage, offset, shape and strides, as one hashable key (a
// storage viewed a million times is looked up, not searched view by view).
std::string view_key(std::string_view storage, uint64_t offset, const Shape& shape,
                     const std::vector<uint64_t>& stride);

// How much of a checkpoint is read. Data: everything a reader of the tensors' bytes needs, each storage's
// file offset included (a zip member's local header, a legacy storage's element count). Layout: the
// tensors' names, dtypes, shapes, strides and storage sharing, from the pickle and the zip's central
// directory alone, every size still checked against the file: what a file on the Hub gives from its two
// ends (io/byte_source.h's HeadTailSource), without its storages' bytes in between.
enum class TorchRead { Data, Layout };

// True when the source is a zip or starts like a legacy checkpoint (a pickle protocol opcode).
bool looks_like_torch_checkpoint(const ByteSource& src);

// Throws Error: Unsafe (a disallowed global or opcode), Malformed, Limit, Unsupported (big-endian, compressed
// members, legacy storage views).
TorchCheckpoint read_torch_checkpoint(const ByteSource& src, TorchRead what = TorchRead::Data);

}  // namespace ma
