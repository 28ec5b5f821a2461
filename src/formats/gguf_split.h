// llama.cpp's names for the parts of a split GGUF model (llama_split_path: NAME-00001-of-00003.gguf), shared
// by the local directory layout and the Hub's file list.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ma {

struct GgufSplitName {
  std::string prefix;  // up to and including the '-' before the part number
  unsigned part = 0;   // 1-based
  unsigned count = 0;
};

// nullopt for a name that is not a part of a split model.
std::optional<GgufSplitName> gguf_split_name(std::string_view file_name);
// The name of part `part` (1-based) of `count` with that prefix.
std::string gguf_part_name(const std::string& prefix, unsigned part, unsigned count);
// A file that stands for a model in a listing: not a split part other than the first, not a multimodal
// projector (mmproj*.gguf, the vision tower of another model).
bool is_gguf_model_entry(std::string_view file_name);

}  // namespace ma
