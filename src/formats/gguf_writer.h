// Writes GGUF files (version 3) as llama.cpp's gguf_write_to_file does: metadata in the given order, tensor
// infos, data aligned to general.alignment (32 unless the metadata sets it), atomically. Used for generated
// test data, the fuzz corpus and the benchmark's sparse 70B skeleton (tensors without data are holes).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "formats/gguf.h"
#include "formats/safetensors_writer.h"

namespace ma {

// One metadata value, already encoded: its type tag and payload bytes (see the gguf_* helpers below).
struct GgufValueToWrite {
  std::string key;
  GgufType type = GgufType::U32;
  std::string payload;  // the bytes after the type tag (for arrays: element type, count, elements)
};

GgufValueToWrite gguf_u32(std::string key, uint32_t v);
GgufValueToWrite gguf_u64(std::string key, uint64_t v);
GgufValueToWrite gguf_i32(std::string key, int32_t v);
GgufValueToWrite gguf_f32(std::string key, float v);
GgufValueToWrite gguf_bool(std::string key, bool v);
GgufValueToWrite gguf_string(std::string key, const std::string& v);
GgufValueToWrite gguf_u32_array(std::string key, const std::vector<uint32_t>& v);
GgufValueToWrite gguf_i32_array(std::string key, const std::vector<int32_t>& v);
GgufValueToWrite gguf_bool_array(std::string key, const std::vector<bool>& v);
GgufValueToWrite gguf_string_array(std::string key, const std::vector<std::string>& v);

// The header (magic to the end of the tensor infos, unpadded); tensors' shapes row-major as in TensorToWrite.
std::string gguf_header_bytes(const std::vector<GgufValueToWrite>& metadata,
                              const std::vector<TensorToWrite>& tensors, uint32_t version = 3);

void write_gguf(const std::filesystem::path& path, const std::vector<GgufValueToWrite>& metadata,
                const std::vector<TensorToWrite>& tensors);

}  // namespace ma
