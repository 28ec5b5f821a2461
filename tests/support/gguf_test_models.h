// Tiny GGUF models for tests, written with formats/gguf_writer.h: llama.cpp's names and metadata keys for a
// Llama-shaped model (optionally tied, with chosen tensor types), small enough to write in microseconds.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/gguf_writer.h"

namespace ma::test {

struct TinyGguf {
  std::string arch = "llama";
  uint32_t hidden = 64, heads = 4, kv_heads = 2, ffn = 128, vocab = 100, layers = 2, context = 2048;
  bool tied = false;
  DType matrix_type = DType::F32;  // of the attention and MLP matrices (norms stay F32)
  bool with_data = true;           // false: holes (sparse file)
};

// The metadata and tensors of such a model (callers may add to either before writing).
std::vector<GgufValueToWrite> tiny_gguf_metadata(const TinyGguf& m);
std::vector<TensorToWrite> tiny_gguf_tensors(const TinyGguf& m);
// Parameters the tensors above hold, from the shapes written out by hand.
uint64_t tiny_gguf_parameters(const TinyGguf& m);

void write_tiny_gguf(const std::filesystem::path& path, const TinyGguf& m = {});

}  // namespace ma::test
