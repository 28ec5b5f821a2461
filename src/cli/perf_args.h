// Command-line options of `modelanalyzer perf` (seed 001 §6): hardware, mode and shape of the step, dtypes,
// execution profile and knobs, parallelism, outputs.
#pragma once
#include <string>
#include <vector>

#include "analysis/perf/perf_model.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"

namespace ma::cli {

struct PerfArgs {
  std::string model;
  HubArgs hub;
  std::string hardware = "h200";  // --hw NAME|FILE.json
  PerfInputs inputs;
  CommonFlags common;
  bool json = false;
  std::string report_file;  // --report FILE.md
  std::string plot_file;    // --plot FILE.png|svg (roofline)
  std::vector<std::string> plot_chips = {"h200",
                                         "b200"};  // --plot-hw A,B (seed default: H200 and B200 at FP8)
  std::string plot_dtype = "fp8";
  bool kv_len_given = false;
};

// The option table, writing into `a` (execution-knob overrides go to `knob_overrides`, applied after the
// profile whatever their order).
CommandSpec perf_spec(PerfArgs& a, std::vector<std::pair<std::string, std::string>>& knob_overrides);
// Throws Error(Usage) for unknown options and bad values.
PerfArgs parse_perf_args(const Args& args);

}  // namespace ma::cli
