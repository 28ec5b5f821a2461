// A tensor as a checkpoint file stores it: name, dtype, shape and where its bytes are.
#pragma once
#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/shape.h"

namespace ma {

struct StoredTensor {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  uint64_t numel = 0;
  uint64_t data_begin = 0;  // relative to the start of the file's data area
  uint64_t data_end = 0;
  uint32_t file_index = 0;  // index into the checkpoint's list of files
  uint64_t bytes() const { return data_end - data_begin; }
};

}  // namespace ma
