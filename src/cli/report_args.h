// Command-line options of the report command (`modelanalyzer MODEL...`), seed 002 §7 and appendix D.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report_inputs.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"
#include "cli/output_options.h"

namespace ma::cli {

struct ReportArgs {
  std::vector<std::string> models;
  CommonFlags common;
  bool detailed = false;
  bool json = false;  // the JSON export on stdout
  std::string export_json, export_markdown, export_html;
  bool visualize = false;
  std::string viz_style = "detailed";
  std::string viz_output;                     // default model_architecture.png (per model when several)
  HubArgs hub;                                // token, revision, offline; the token is never printed
  std::optional<std::filesystem::path> base;  // a PEFT adapter's base model (default: from its config)
  ReportOptions options;                      // batch, context, kv dtype, skip tokenizer
};

// The option table, writing into `a`.
CommandSpec report_spec(ReportArgs& a);

// The outputs that write to standard output: --json, and those named "-" (at most one, parse_report_args
// checks).
std::vector<OutputClaim> output_claims(const ReportArgs& a);
// Throws Error(Usage) for unknown options and bad values.
ReportArgs parse_report_args(const Args& args);

}  // namespace ma::cli
