// Writes safetensors files the way the reference writer does (header padded with spaces to a multiple of 8,
// tensors in the given order), atomically: a temp file renamed into place, so no half-written file is left.
// Used for the built-in example model, for generated test data and for the benchmark's sparse checkpoints.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace ma {

struct TensorToWrite {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  std::string data;  // exactly the tensor's bytes, or empty to leave a hole (sparse file, reads as zeros)
};

// The bytes its data takes: whole elements, or whole blocks of a ggml block type (the GGUF writer's).
inline uint64_t data_bytes(const TensorToWrite& t) {
  return dtype_bytes(numel(t.shape), t.dtype);
}

// The header JSON the writer would emit for these tensors (without the 8-byte prefix, unpadded).
std::string safetensors_header_json(const std::vector<TensorToWrite>& tensors,
                                    const std::vector<std::pair<std::string, std::string>>& metadata);

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       const std::vector<std::pair<std::string, std::string>>& metadata = {});

}  // namespace ma
