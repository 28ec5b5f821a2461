// Command-line options of `modelanalyzer serve MODEL`.
#pragma once
#include <optional>
#include <string>

#include "analysis/serve/serving_model.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"
#include "cli/output_options.h"

namespace ma::cli {

struct ServeArgs {
  std::string model;
  std::string config_file;  // --config: a simulator config instead of MODEL
  CommonFlags common;
  ResultOutputs outputs;  // --json, --export, --csv, --markdown, --plot (the throughput-latency curve)
  std::string hardware = "h200";     // --hw, resolved once the option table is done
  std::string precision;             // --precision fp8|fp4|bf16; default: as stored
  std::optional<std::string> sweep;  // --sweep 1,2,4,...; default: InferenceMAX's concurrencies
  ServeRequest request;
  HubArgs hub;
};

CommandSpec serve_spec(ServeArgs& a);
ServeArgs parse_serve_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
