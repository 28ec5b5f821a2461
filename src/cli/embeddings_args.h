// Command-line options of `modelanalyzer embeddings MODEL`.
#pragma once
#include <string>

#include "analysis/embedding/embedding_analysis.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"
#include "cli/output_options.h"

namespace ma::cli {

struct EmbeddingsArgs {
  std::string model;
  CommonFlags common;
  ResultOutputs outputs;   // --json, --export, --csv (one line per row), --markdown, --plot (the projection)
  std::string elbow_plot;  // --elbow-plot FILE
  EmbeddingOptions options;
  HubArgs hub;
};

CommandSpec embeddings_spec(EmbeddingsArgs& a);
EmbeddingsArgs parse_embeddings_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
