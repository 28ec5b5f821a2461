// The inputs of the commands that read every weight (stats, spectrum, embeddings): MODEL itself, or — seed
// 004's `--model_path data/models` — every model under a directory of models, each analysed in turn and told
// apart by its model_id. One place, so the three commands take the same inputs.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model_weight_stats.h"
#include "cli/cli_common.h"
#include "cli/model_source.h"
#include "formats/model_files.h"

namespace ma::cli {

// A model found under a directory of models: its id there, and the commit of a Hugging Face cache snapshot.
// "models--org--name/snapshots/<commit>" (the Hugging Face cache, seed 004's "every cached repo") is the repo
// org/name at that commit; any other path is its own id (its path under the directory, "org/name").
struct FoundModel {
  std::string id, revision;
  LocalModelFiles files;
};

// The models under `root`, found by a walk of at most three levels that stops at the first model on a path,
// sorted by id. Symbolic links inside `root` are not followed (a link cycle cannot make the walk endless, and
// nothing outside the directory is read unasked): those that lead to a directory are listed in
// `symlinks_skipped` (paths relative to `root`), so that the caller can say so.
struct ModelsUnder {
  std::vector<FoundModel> models;
  std::vector<std::string> symlinks_skipped;
};
ModelsUnder models_under(const std::filesystem::path& root);

// One model a weight-reading command analyses.
struct ModelToAnalyse {
  std::string model_id;  // MODEL as given, or its id under the directory of models
  std::string revision;  // a Hugging Face cache snapshot's commit, else empty (the CSV's revision column)
  std::string where;     // what errors about it name: MODEL as given, or the model's directory
  ModelWeightsInput input;
};

// MODEL's weights (a local path, or a Hub id whose weights are downloaded; `base`: a PEFT adapter's base
// model, --base), or, when MODEL is a directory that is no model itself, every model under it (models_under)
// with their PEFT bases found from their own configs. A directory holding no model throws the error of
// MODEL itself, saying that symlinked entries were not followed where it had some; where it holds models
// and such links, a warning says they were skipped. Warnings are printed (under `out`'s --quiet).
std::vector<ModelToAnalyse> models_to_analyse(const std::string& model, const HubArgs& hub,
                                              const std::optional<std::filesystem::path>& base,
                                              const Output& out);

// Several models' outputs, as stats writes them: the JSON documents as one array, the CSV parts under one
// header (the model_id column tells the rows apart), and the console blocks each headed "MODEL id".
std::string joined_json(const std::vector<std::string>& documents);
void append_csv(std::string& csv, const std::string& part);
std::string console_block(const std::string& model_id, const std::string& console, bool several, bool first);

// The usage error for a figure of one model asked of a directory of `count` models.
[[noreturn]] void throw_one_model_figure(const std::string& model, const std::string& flag, size_t count);

}  // namespace ma::cli
