// Command-line options of `modelanalyzer graph MODEL`: an ONNX model's graph (seed 000's inspection), local
// or on the Hub (its .onnx fetched whole, --file choosing one of a repository's models).
#pragma once
#include <string>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"

namespace ma::cli {

struct GraphArgs {
  std::string model;
  CommonFlags common;
  HubArgs hub;
  bool json = false;
  bool edges = false;  // every intermediate value with its inferred shape
};

CommandSpec graph_spec(GraphArgs& a);
GraphArgs parse_graph_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
