// A directory of model files read as a Hub repository would be: a local clone, or a cache snapshot another
// tool wrote. The user chooses one of its models with --file as from the repository's file list, its
// several GGUF models (quantizations of one model) are listed from their own headers, and its several ONNX
// models (an export's variants) from their files.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/model_files.h"
#include "hub/onnx_choice.h"
#include "hub/remote_model.h"

namespace ma {

// The model file under `dir` that `selector` names, by the rules of a repository's file list: a name ending
// in .onnx by choose_onnx_model's, any other by GgufCatalog::choose's (a file name, a path, a quantization
// such as Q4_K_M). Its path relative to `dir`. `name` names the directory in errors, `holder` what it is
// ("the directory", "the repository" for a cache snapshot), and `spelled` how the user gave the choice.
std::string choose_model_on_disk(const std::filesystem::path& dir, std::string_view selector,
                                 const std::string& name, std::string_view holder, std::string_view spelled);

// Every GGUF model under `dir` as GgufCatalog groups a repository's (a split model is one, named by its first
// part), with its parts on disk; a model missing a part carries that error instead. Path order.
std::vector<GgufModelChoice> gguf_models_on_disk(const std::filesystem::path& dir, const std::string& name,
                                                 std::string_view holder);

// The ONNX models `models` under `dir` (paths as locate_local_model gives them), each described from the
// files on disk as a repository's listing describes it (listed_onnx_model).
std::vector<ListedOnnxModel> onnx_models_on_disk(const std::filesystem::path& dir,
                                                 const std::vector<std::filesystem::path>& models);

// The model of the directory `dir`, as a Hub repository's is chosen: the one `selector` names
// (choose_model_on_disk; an ONNX model in a folder read with the config beside it, else the directory's,
// as on the Hub), else the one locate_local_model finds. Several models are listed when `list_models`
// (the report), else asked for (--file); several ONNX models beside a config are offered in a note, the
// model being the config's.
struct ModelOnDisk {
  LocalModelFiles files;
  std::vector<GgufModelChoice> gguf_models;  // several GGUF models, from their headers
  std::vector<ListedOnnxModel> onnx_models;  // several ONNX models and no config, from their files
  std::vector<std::string> notes;
};
ModelOnDisk open_model_on_disk(const std::filesystem::path& dir, const std::optional<std::string>& selector,
                               bool list_models, const std::string& name, std::string_view holder,
                               std::string_view spelled);

}  // namespace ma
