// Which files make up a local model: a directory (config + weights, sharded or not, or a config alone),
// a single weight file (safetensors, PyTorch, GGUF, ONNX), or a bare config.json.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/safetensors_index.h"
#include "formats/weight_format.h"

namespace ma {

// The first bytes of a weight file on the Hub (a safetensors length prefix and header, a GGUF header; for a
// PyTorch checkpoint its first and last bytes, packed by pack_head_tail) and the whole file's size.
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
  // The weights: their format and their files in read order — safetensors files (shards without an index, or
  // a PEFT adapter's), the PyTorch checkpoint, the parts of a split GGUF model, one .onnx (its external data
  // files are named inside it). With an index the format is the index's and the index names the files; None
  // for a config alone.
  CheckpointFormat format = CheckpointFormat::None;
  std::vector<std::filesystem::path> weight_files;
  // Weight files in formats not read (PyTorch, GGUF or ONNX files beside safetensors ones): reported, so a
  // dry run from the config is never mistaken for an inventory of those files.
  std::vector<std::filesystem::path> unread_weights;
  // A Hub model's weight files are not on disk: their headers (safetensors or GGUF, as `format` says) were
  // fetched by range requests. Keyed by the name relative to `root` (as the index or the file list names
  // them); read_checkpoint parses these instead of opening files.
  std::vector<FetchedHeader> fetched_headers;
  // A Hub model's files by path relative to `root`, with the sizes its listing gives: an ONNX model's
  // external data files, when not downloaded, are checked against these (their bytes are never fetched).
  std::map<std::string, uint64_t> listed_sizes;
  // The index, when whoever located the files parsed it already (a 4 MB index takes milliseconds to parse).
  std::shared_ptr<const SafetensorsIndex> parsed_index;
  // SeveralModels::List: a directory whose weights are several GGUF models, each named by its first
  // file, in path order; none of them is read (no weight files).
  std::vector<std::filesystem::path> gguf_models;
  // A directory whose weights are several ONNX models, none of them model.onnx (at its top, or in its
  // folders: transformers.js's onnx/model.onnx, onnx/model_fp16.onnx ...), in path order; none is read.
  // Beside a config.json they are offered (the model is the config's); else SeveralModels::List's listing.
  std::vector<std::filesystem::path> onnx_models;
};

// A directory whose weights are several models (GGUF quantizations of one model; ONNX exports with no
// config.json beside them): which one is meant only the user can say. Refuse: Error(Usage) naming them;
// AskForFile: the same, saying that --file chooses one (for the commands that take it). List: returned with
// gguf_models or onnx_models, for the caller to list (the report does, as for a Hub repository).
enum class SeveralModels { Refuse, AskForFile, List };

// Throws Error(NotFound) when the path does not exist, Error(Usage) when it is nothing we can analyse, and
// the error opening it gives (NotFound, LocalIO) when it is a symbolic link that cannot be followed.
LocalModelFiles locate_local_model(const std::string& arg, SeveralModels several = SeveralModels::Refuse);

// The .onnx files in the folders under `dir` (two deep, in at most 10,000 entries, where they are the only
// weights below its top), whatever its top holds: the exports a repository keeps beside its weights
// (transformers.js's onnx/ beside model.safetensors). Path order.
std::vector<std::filesystem::path> onnx_files_in_folders(const std::filesystem::path& dir);

// True when `path` names something on disk, a symbolic link included even when it cannot be followed
// (dangling, looping) and a name below a directory we may not search: such a name is the model's file or
// the user's local path, opened and its failure reported, never skipped and never taken for a Hub id (a
// local path wins over a Hub id of the same spelling). Never throws.
bool path_is_present(const std::filesystem::path& path);

}  // namespace ma
