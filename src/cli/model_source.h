// MODEL as the user wrote it: a local path when one exists, else a Hub repo id or URL (hub/remote_model.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/metadata.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "formats/model_files.h"
#include "hub/hub_settings.h"
#include "hub/remote_model.h"
#include "hub/repo_ref.h"
#include "model/inventory.h"

namespace ma::cli {

struct HubArgs {
  HubFlags flags;
  std::optional<std::string> revision;  // --revision (overrides an @rev in the id)
  std::optional<std::string> file;      // --file: which GGUF model of a repository to read or download
  bool list_models = false;  // without --file, list a repository's several GGUF models or its ONNX models
};

struct OpenedModel {
  LocalModelFiles files;
  std::optional<ModelMetadata> metadata;  // Hub models only
  std::optional<RemoteStats> stats;
  std::vector<std::string> warnings;         // settings and fallbacks worth telling the user
  std::vector<std::string> notes;            // how the model was read, where that is worth saying
  std::vector<GgufModelChoice> gguf_models;  // list_models: the repository's models, none chosen
  std::vector<ListedOnnxModel> onnx_models;  // list_models: its ONNX models in folders, nothing else to read
};

OpenedModel open_model(const std::string& arg, const HubArgs& hub, bool skip_tokenizer);

// The model file MODEL and --file name: --file, a ":NAME" suffix (a GGUF model), or the .gguf or .onnx file
// a /blob/ or /resolve/ URL names. Several given must agree (else Error(Usage)); nullopt when none is. A name
// ending in .onnx chooses an ONNX model (is_onnx_selector), any other a GGUF model.
std::optional<std::string> model_file_selector(const RepoRef& ref, const HubArgs& hub);
inline bool is_onnx_selector(const std::optional<std::string>& s) {
  return s && s->ends_with(".onnx");
}

// MODEL opened (no tokenizer) and its inventory built, the warnings and notes printed on the way: where the
// commands that model a step (perf, plan) start. The inventory lives until the process exits.
struct OpenedInventory {
  OpenedModel opened;
  Inventory* inventory = nullptr;
};
OpenedInventory open_inventory(const std::string& arg, const HubArgs& hub, const Output& out);
// `--config FILE`: a simulator config (build-config's) rebuilt as the model its layers describe
// (model/simulator_config.h), with a note naming the family and comparing its total with the config's.
OpenedInventory open_simulator_config(const std::string& path, const Output& out);
// perf and serve: MODEL, or the simulator config `config` when one is given.
OpenedInventory open_model_or_config(const std::string& model, const std::string& config, const HubArgs& hub,
                                     const Output& out);
// --verbose: the files found (config, weight files and their format, an index, headers fetched).
void trace_files(const LocalModelFiles& files);

}  // namespace ma::cli
