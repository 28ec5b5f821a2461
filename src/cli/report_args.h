// Command-line options of the report command (`modelanalyzer MODEL...`), seed 002 §7 and appendix D.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/report_inputs.h"
#include "cli/commands.h"
#include "cli/model_source.h"

namespace ma::cli {

struct ReportArgs {
  std::vector<std::string> models;
  bool detailed = false;
  bool verbose = false;
  bool quiet = false;
  bool json = false;  // the JSON export on stdout
  std::string export_json, export_markdown;
  bool visualize = false;
  std::string viz_style = "detailed";
  std::string viz_output;  // default model_architecture.png (per model when several)
  HubArgs hub;  // token, revision, offline; the token is never printed
  ReportOptions options;             // batch, context, kv dtype, skip tokenizer
};

// Throws Error(Usage) for unknown options and bad values.
ReportArgs parse_report_args(const Args& args);

}  // namespace ma::cli
