// A repository of GGUF quantizations as the Hub's file viewer lists it, from each model's header alone: the
// file, its size, llama.cpp's file type (general.file_type: "Q4_K_M"), the parameters and tensor bytes, bits
// per weight (8 x tensor bytes / parameters, scales included), and the type mix: how many tensors,
// parameters and bytes each ggml type holds.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "hub/remote_model.h"

namespace ma {

struct GgufTypeShare {
  DType dtype = DType::F32;
  uint64_t tensors = 0, parameters = 0, bytes = 0;
};

struct GgufQuantization {
  std::string file;
  uint64_t parts = 0;
  // Of every part, as the listing gives them; unknown (null in the JSON) when a part is missing from the
  // listing or it gives no size.
  std::optional<uint64_t> size_bytes;
  std::string file_type;  // "" when general.file_type is absent or a number llama.cpp does not name
  uint64_t parameters = 0, tensor_bytes = 0;
  double bits_per_weight = 0;
  std::vector<GgufTypeShare> types;  // most parameters first
  std::string error;  // why the model could not be read (its figures are then 0); "" when it was
};

// A model whose header does not parse, or that could not be fetched, carries its error; when no model can be
// read, the first one's is thrown.
std::vector<GgufQuantization> summarize_gguf_models(const std::vector<GgufModelChoice>& models);

}  // namespace ma
