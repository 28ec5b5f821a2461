// Which ONNX model of a Hub repository to read, and what comes with it. Exports keep their models at the top
// (model.onnx), or in folders, several to a repository: transformers.js's onnx/model.onnx beside
// onnx/model_fp16.onnx and onnx/model_q4.onnx, ONNX Runtime GenAI's one folder per target with its
// genai_config.json. The user names one with --file; its external data files are beside it, named after it
// (model.onnx_data, model.onnx.data, model.onnx_data_1), as every exporter writes them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/model_info.h"

namespace ma {

// An ONNX model a repository keeps in a folder (transformers.js's onnx/model_q4.onnx, ONNX Runtime GenAI's
// cpu-int4/model.onnx), as its listing describes it: a choice for --file, as the Hub's file viewer lists
// them.
struct ListedOnnxModel {
  std::string path;
  std::string dtype;                   // transformers_js_dtype's; "" when the name does not say
  std::optional<uint64_t> size_bytes;  // onnx_listed_bytes': the graph and the data named after it
};

// `model` described from the listing `files` alone.
ListedOnnxModel listed_onnx_model(const std::vector<RepoFile>& files, const RepoFile& model);

// The repository's ONNX models in folders (onnx_models_in_folders), each described from the listing alone.
std::vector<ListedOnnxModel> listed_onnx_models(const std::vector<RepoFile>& files);

// The ONNX model an analysis reads of a repository holding no other weights, as of a local directory
// (locate_local_model): its one top-level .onnx file, or model.onnx among several; else its only model in a
// folder (what `download --file` leaves of a repository of several); nullptr when there is none, several at
// the top and none is model.onnx, or several in folders.
const RepoFile* repository_onnx_model(const std::vector<RepoFile>& files);

// The .onnx file `name` names: its path as listed, else the only .onnx file of that file name. Throws
// Error(NotFound) naming the repository's ONNX models when none is, Error(Usage) when several have that file
// name (their paths listed). `spelled` says how the user gave it (--file, the URL), `holder` what `repo` is.
const RepoFile& choose_onnx_model(const std::vector<RepoFile>& files, std::string_view name,
                                  const std::string& repo, std::string_view spelled,
                                  std::string_view holder = "the repository");

// The files a download of `model` brings with it: the external data beside it whose names begin with its
// own, and the genai_config.json of its folder.
std::vector<const RepoFile*> onnx_companions(const std::vector<RepoFile>& files, const RepoFile& model);

// The repository's .onnx files below its top level, in listing order: the models offered to --file.
std::vector<const RepoFile*> onnx_models_in_folders(const std::vector<RepoFile>& files);

// Their paths for a note or an error, one line: "onnx/model.onnx, onnx/model_fp16.onnx and 3 more".
std::string onnx_model_paths(const std::vector<const RepoFile*>& models);
std::string onnx_model_paths(const std::vector<std::string>& paths);

// `model` and the external data named after it, as the listing gives their sizes (nullopt when it gives no
// size for one). Data an exporter named otherwise is known only to the graph, which is not read here.
std::optional<uint64_t> onnx_listed_bytes(const std::vector<RepoFile>& files, const RepoFile& model);

// The dtype transformers.js loads `model` as, by its file name: its `dtype` option appends a suffix to the
// base name (model_fp16.onnx "fp16", model_quantized.onnx "q8", model_q4f16.onnx "q4f16"), and the base name
// itself is its "fp32" when a variant of it is beside it. "" when the name follows no such convention
// (model_O1.onnx, or a model.onnx alone).
std::string_view transformers_js_dtype(const std::vector<RepoFile>& files, const RepoFile& model);

}  // namespace ma
