// Command-line options of `modelanalyzer perf` (seed 001 §6): hardware, mode and shape of the step, dtypes,
// execution profile and knobs, parallelism, outputs.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/perf/perf_model.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"
#include "io/output_file.h"
#include "report/roofline_plot.h"

namespace ma::cli {

struct PerfArgs {
  std::string model;
  std::string config_file;  // --config: a simulator config instead of MODEL
  HubArgs hub;
  std::string hardware = "h200";  // --hw NAME|FILE.json
  PerfInputs inputs;
  CommonFlags common;
  bool json = false;
  std::string report_file;  // --report FILE.md
  std::string plot_file;    // --plot FILE.png|svg (roofline)
  std::string html_file;    // --html FILE.html: the study with its roofline, one self-contained page
  // The roofline's chips and dtype: by default the --hw profile and the step's own dtypes, so the figure
  // shows what the tables compute (--plot-hw / --plot-dtype draw others, e.g. seed 001's H200 and B200 at
  // FP8).
  std::vector<std::string> plot_chips;
  std::string plot_dtype;
  RooflineStyle roofline;              // --roofline-x, --roofline-y, --roofline-labels
  std::optional<double> b_sat;         // --b-sat: the tensor-core saturation M of every chip
  std::string sensitivity = "medium";  // --sensitivity small|medium|large: the knob grid's size
  bool kv_len_given = false;
  bool mode_given = false;
  bool weight_dtype_given = false;  // --dtype or --weight-dtype: not the checkpoint's stored dtypes
  bool kv_dtype_given = false;

  // One of --json, --report -, --html -, --plot - writes stdout (parse_perf_args allows one at most).
  bool stdout_taken() const {
    return json || names_stdout(report_file) || names_stdout(html_file) || plot_file == "-";
  }
};

// The option table, writing into `a` (execution-knob overrides go to `knob_overrides`, applied after the
// profile whatever their order).
CommandSpec perf_spec(PerfArgs& a, std::vector<std::pair<std::string, std::string>>& knob_overrides);
// Throws Error(Usage) for unknown options and bad values.
PerfArgs parse_perf_args(const Args& args);

}  // namespace ma::cli
