// A directory of model files read as a Hub repository would be: a local clone, or a cache snapshot another
// tool wrote. The user chooses one of its models with --file as from the repository's file list, and its
// several GGUF models (quantizations of one model) are listed from their own headers.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace ma
