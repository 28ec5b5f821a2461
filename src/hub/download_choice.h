// What `download MODEL` fetches when MODEL names less than a repository: the one file a /blob/REV/FILE or
// /resolve/REV/FILE URL names, every part of the GGUF model a selector names (":Q4_K_M", --file), or an ONNX
// model (--file NAME.onnx) with its external data, chosen on the revision's file list before any transfer
// starts — as llama.cpp's -hf fetches one quantization, not the 100 GB of all of them; and, with --needed,
// what an analysis of the repository reads.
#pragma once
#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hub/hub_settings.h"
#include "hub/model_info.h"
#include "hub/repo_ref.h"

namespace ma {

struct DownloadChoice {
  std::vector<std::string> paths;  // repo paths exactly as listed, in part order
  std::string commit;              // of the file list they were chosen from
  // The Hub's answer the paths were chosen from, when it came just now (else the cache's record was used):
  // the download takes its file list from it instead of asking the Hub again.
  std::optional<HubModelInfo> listed_online;
  std::vector<std::string> warnings;  // the cache could not record that answer
};

// `file` (a URL's) is taken as it is and must be listed; else `selector` picks an ONNX model (a name ending
// in .onnx, hub/onnx_choice.h) with its companions and the external data its graph names (the graph read as
// an analysis reads it, when it can be), or a GGUF model as GgufCatalog::choose does, `spelled` saying how
// the user gave it. The file list comes from the Hub, else
// (offline, or the Hub unreachable) from the cache's record of the revision, else from the files of its
// cached snapshot. Throws Error(NotFound) for a file or model not in the list, or a revision the cache does
// not hold offline; Error(Usage) for a selector several models match.
// `download --needed`: what an analysis of the repository reads, for the commands that read the weights
// (stats, compare, spectrum) — its config, tokenizer, index and quantization files and the weights of the
// model it analyses: an index's shards, the unindexed files read, a GGUF model's parts, an ONNX model with
// its data. Not the repository's other weight files: a consolidated.safetensors beside the shards, Llama's
// original/*.pth, pytorch_model.bin beside model.safetensors, other formats' exports. The model is opened as
// an analysis opens it (headers fetched into the cache), so its errors are the analysis's (several GGUF
// models: name one with --file).
DownloadChoice choose_needed_files(const RepoRef& ref, const HubSettings& settings,
                                   const std::atomic<bool>* cancel);

DownloadChoice choose_download_files(const RepoRef& ref, const HubSettings& settings,
                                     const std::optional<std::string>& file,
                                     const std::optional<std::string>& selector, std::string_view spelled,
                                     const std::atomic<bool>* cancel);

}  // namespace ma
