// Command-line options of `modelanalyzer perf` (seed 001 §6): hardware, mode and shape of the step, dtypes,
// execution profile and knobs, parallelism, outputs.
#pragma once
#include <string>
#include <vector>

#include "analysis/perf/perf_model.h"
#include "cli/commands.h"
#include "cli/model_source.h"

namespace ma::cli {

struct PerfArgs {
  std::string model;
  HubArgs hub;
  std::string hardware = "h200";  // --hw NAME|FILE.json
  PerfInputs inputs;
  bool json = false, quiet = false;
  std::string report_file;  // --report FILE.md
  std::string plot_file;    // --plot FILE.png|svg (roofline)
  std::vector<std::string> plot_chips = {"h200", "b200"};  // --plot-hw A,B (seed default: H200 and B200 at FP8)
  std::string plot_dtype = "fp8";
};

// Throws Error(Usage) for unknown options and bad values.
PerfArgs parse_perf_args(const Args& args);

}  // namespace ma::cli
