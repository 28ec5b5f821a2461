// A tensor as a checkpoint file stores it: name, dtype, shape and where its bytes are.
#pragma once
#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/shape.h"

namespace ma {

struct StoredTensor {
  std::string name;
  Shape shape;
  uint64_t numel = 0;
  uint64_t data_begin = 0;  // relative to the start of the file's data area
  uint64_t data_end = 0;
  // PyTorch only, on the first tensor of a storage: the whole storage's bytes, which the file holds whatever
  // its views cover (a view of 32 elements into a storage of 96 keeps all 96); 0: the tensor's own bytes.
  uint64_t storage_bytes = 0;
  uint32_t file_index = 0;   // index into the checkpoint's list of files
  DType dtype = DType::F32;  // beside the flags below: 104 bytes a tensor, not 112
  // PyTorch checkpoints only: a view whose elements are not the bytes [data_begin, data_end) (its bytes
  // count as numel x size); one whose elements are exactly those bytes but not in row-major order (a
  // transpose: order-free statistics hold, element-wise comparisons do not); a tensor whose storage an
  // earlier one already holds (its bytes are there); and one that is exactly an earlier tensor (tied weights:
  // the same storage, offset, shape and strides), whose parameters are the earlier one's.
  bool strided = false;
  bool permuted = false;
  bool shares_storage = false;
  bool tied = false;
  // ONNX only: values held in protobuf's varint fields (int32_data, int64_data), not as raw bytes; their
  // bytes count as numel x size, and there is no byte range to read them from.
  bool encoded = false;
  uint64_t bytes() const { return data_end - data_begin; }
  // What it adds to the checkpoint's bytes: nothing when an earlier tensor holds its storage, the whole
  // storage when it is the first of one.
  uint64_t held_bytes() const { return shares_storage ? 0 : storage_bytes ? storage_bytes : bytes(); }
};

}  // namespace ma
