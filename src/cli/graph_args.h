// Command-line options of `modelanalyzer graph MODEL`: a local ONNX model's graph (seed 000's inspection).
#pragma once
#include <string>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"

namespace ma::cli {

struct GraphArgs {
  std::string model;
  CommonFlags common;
  bool json = false;
  bool edges = false;  // every intermediate value with its inferred shape
};

CommandSpec graph_spec(GraphArgs& a);
GraphArgs parse_graph_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
