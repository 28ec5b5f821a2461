// A model on the Hub made ready for analysis without its weights: the model info (commit, files, metadata),
// the small files the analysis reads (config, tokenizer, index, quantization configs) in the shared cache,
// and every safetensors header by range requests — from the cache when an earlier run fetched them. With
// HF_HUB_OFFLINE everything comes from the cache, or the error lists what is missing; when the Hub cannot be
// reached and the cache holds the revision, the cached snapshot is used with a warning.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "formats/model_files.h"
#include "hub/hub_settings.h"
#include "hub/model_info.h"
#include "hub/onnx_choice.h"
#include "hub/repo_ref.h"

namespace ma {

struct RemoteOptions {
  bool skip_tokenizer = false;
  // The GGUF model to read (hub/gguf_catalog.h: a file's path or name, or a quantization such as "Q4_K_M",
  // case-insensitive). Set, it wins over whatever else the repository holds (safetensors beside the GGUF
  // files): the model named is the one analysed, or nothing is. Unset: of a repository holding GGUF files
  // only, the only model, or an error listing them.
  std::optional<std::string> gguf_file;
  // The ONNX model to read (hub/onnx_choice.h: its path, or its file name when one file has it). Set, it
  // wins over whatever else the repository holds, as gguf_file does; it is read from its folder.
  std::optional<std::string> onnx_file;
  // A listing, as the Hub's file viewer shows it, instead of refusing to choose: with several GGUF models and
  // no gguf_file, every model's header(s) fetched into RemoteModel::gguf_models; with nothing to report but
  // ONNX models in folders (ONNX Runtime GenAI's repositories hold no config.json), those models from the
  // listing alone into RemoteModel::onnx_models.
  bool list_models = false;
  // The Hub's answer for the revision, fetched by the caller just now (`download --needed` chose files from
  // it): taken as the model info instead of asking the Hub a second time. Online only; must outlive the call.
  const HubModelInfo* listed = nullptr;
};

// One GGUF model of a repository of quantizations: its file (the first part of a split one), every part's
// header as fetched (or read from the cache), and the bytes of all its parts.
struct GgufModelChoice {
  std::string file;
  std::vector<FetchedHeader> parts;                  // fetched, in part order
  std::vector<std::filesystem::path> parts_on_disk;  // or, when downloaded, the files themselves
  // Of all its parts, as the listing gives them; unknown when a part is missing or the listing gives no size
  // (the parts that are there would pass for the model's size).
  std::optional<uint64_t> bytes;
  // Why this model cannot be read (a split part missing from the repository, a header the server would not
  // give): the listing names it beside the others instead of failing for all of them.
  std::optional<Error> error;
};

struct RemoteStats {
  uint64_t requests = 0;
  uint64_t bytes_received = 0;
  uint64_t files_downloaded = 0;
  uint64_t files_cached = 0;
  uint64_t headers_fetched = 0;
  uint64_t headers_cached = 0;
  uint64_t header_bytes = 0;  // sum of 8 + N over the weight files
};

struct RemoteModel {
  LocalModelFiles files;  // root: the snapshot folder in the cache
  HubModelInfo info;
  RemoteStats stats;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // how it was read, where that is worth saying (a snapshot read as is)
  std::vector<GgufModelChoice> gguf_models;  // list_models: the repository's models, no weights chosen
  std::vector<ListedOnnxModel> onnx_models;  // list_models: the ONNX models in folders, none chosen
  // The bytes of the weight files read, as the listing gives them: an index's shards, the unindexed files,
  // a GGUF model's parts. Not every weight file of the repository: a consolidated.safetensors beside the
  // shards, the other quantizations, a training_args.bin are not the model read. Unknown when the listing
  // gives no size for one (a snapshot read as it is has no listing), and for an ONNX model, whose data files
  // only its graph names: the checkpoint's file_bytes counts them once it is read.
  std::optional<uint64_t> weight_bytes;
};

RemoteModel open_remote_model(const RepoRef& ref, const HubSettings& settings,
                              const RemoteOptions& options = {});

// The files the analysis reads besides weights; everything else in a repo is left on the Hub.
bool is_analysis_file(std::string_view path, bool skip_tokenizer);

}  // namespace ma
