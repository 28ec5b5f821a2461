// Command-line options of `modelanalyzer compare A B`.
#pragma once
#include <string>
#include <vector>

#include "analysis/weight_compare.h"
#include "cli/commands.h"
#include "cli/option_table.h"
#include "cli/output_options.h"

namespace ma::cli {

struct CompareArgs {
  std::vector<std::string> models;  // A and B
  CommonFlags common;
  ResultOutputs outputs;
  size_t top = 20;
  CompareOptions options;  // thresholds
};

CommandSpec compare_spec(CompareArgs& a);
CompareArgs parse_compare_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
