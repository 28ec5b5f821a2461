// Command-line options of `modelanalyzer stats MODEL`.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "analysis/model_weight_stats.h"
#include "analysis/weight_scan.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"
#include "cli/output_options.h"

namespace ma::cli {

struct StatsArgs {
  std::string model;
  CommonFlags common;
  ResultOutputs outputs;
  std::string trends_file;                    // "-": stdout
  std::string html_file;                      // --html: one self-contained page ("-": stdout)
  std::optional<std::filesystem::path> base;  // a PEFT adapter's base model
  StatsSelection selection;
  ScanOptions scan;  // eps, bins, threads
  HubArgs hub;
};

CommandSpec stats_spec(StatsArgs& a);
StatsArgs parse_stats_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
