// Command-line options of `modelanalyzer tensors MODEL`.
#pragma once
#include <string>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"

namespace ma::cli {

struct TensorsArgs {
  std::string model;
  CommonFlags common;
  bool json = false;
  std::string csv_path;  // "-": stdout
  HubArgs hub;
};

CommandSpec tensors_spec(TensorsArgs& a);
TensorsArgs parse_tensors_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
