// Which files make up a local model: a directory (config + weights, sharded or not, or a config alone),
// a single weight file (safetensors, PyTorch, GGUF), or a bare config.json.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/safetensors_index.h"

namespace ma {

// The first 8 + N bytes of a safetensors file (its length prefix and header) and the whole file's size.
struct FetchedHeader {
  std::string name;
  std::string prefix;
  uint64_t file_size = 0;
};

struct LocalModelFiles {
  std::filesystem::path root;                   // directory holding the files
  std::string display_name;                     // what the user named
  std::optional<std::filesystem::path> config;  // config.json
  std::optional<std::filesystem::path> index;  // model.safetensors.index.json or pytorch_model.bin.index.json
  bool index_is_pytorch = false;               // the index names .bin shards (names only, no headers)
  std::vector<std::filesystem::path> safetensors;  // weight files to read headers from, in shard order
  // PyTorch checkpoints (torch.save: .bin, .pt, .pth, .ckpt) to read when there is no safetensors file, in
  // name order; a pytorch_model.bin index names its shards itself.
  std::vector<std::filesystem::path> torch_files;
  // A GGUF model: one file, or the parts of a split one (NAME-00001-of-0000N.gguf) in part order.
  std::vector<std::filesystem::path> gguf_files;
  // An ONNX model (model.onnx); its external data files are named inside it.
  std::optional<std::filesystem::path> onnx_file;
  // Weight files in formats not read (PyTorch, GGUF or ONNX files beside safetensors ones): reported, so a
  // dry run from the config is never mistaken for an inventory of those files.
  std::vector<std::filesystem::path> unread_weights;
  // A Hub model's weight files are not on disk: their headers were fetched by range requests. Keyed by the
  // name relative to `root` (as the index or the file list names them); read_checkpoint parses these instead
  // of opening files.
  std::vector<FetchedHeader> fetched_headers;
  // A Hub GGUF model's headers (parts of gguf_files, by name relative to `root`), fetched by range requests;
  // read_checkpoint parses these instead of opening the files.
  std::vector<FetchedHeader> fetched_gguf;
  // The index, when whoever located the files parsed it already (a 4 MB index takes milliseconds to parse).
  std::shared_ptr<const SafetensorsIndex> parsed_index;
};

// Throws Error(NotFound) when the path does not exist, Error(Usage) when it is nothing we can analyse.
LocalModelFiles locate_local_model(const std::string& arg);

}  // namespace ma
