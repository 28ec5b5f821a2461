// Which ONNX model of a Hub repository to read, and what comes with it. Exports keep their models at the top
// (model.onnx), or in folders, several to a repository: transformers.js's onnx/model.onnx beside
// onnx/model_fp16.onnx and onnx/model_q4.onnx, ONNX Runtime GenAI's one folder per target with its
// genai_config.json. The user names one with --file; its external data files are beside it, named after it
// (model.onnx_data, model.onnx.data, model.onnx_data_1), as every exporter writes them.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "hub/model_info.h"

namespace ma {

// The .onnx file `name` names: its path as listed, else the only .onnx file of that file name. Throws
// Error(NotFound) naming the repository's ONNX models when none is, Error(Usage) when several have that file
// name (their paths listed). `spelled` says how the user gave it (--file, the URL).
const RepoFile& choose_onnx_model(const std::vector<RepoFile>& files, std::string_view name,
                                  const std::string& repo, std::string_view spelled);

// The files a download of `model` brings with it: the external data beside it whose names begin with its
// own, and the genai_config.json of its folder.
std::vector<const RepoFile*> onnx_companions(const std::vector<RepoFile>& files, const RepoFile& model);

// The repository's .onnx files below its top level, in listing order, for a note that offers them
// ("onnx/model.onnx, onnx/model_fp16.onnx and 3 more"); empty when there are none.
std::string onnx_models_in_folders(const std::vector<RepoFile>& files);

}  // namespace ma
