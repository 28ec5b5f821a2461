// Command-line options of `modelanalyzer spectrum MODEL`.
#pragma once
#include <string>

#include "analysis/model_weight_stats.h"
#include "analysis/spectrum/model_spectrum.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/option_table.h"
#include "cli/output_options.h"

namespace ma::cli {

struct SpectrumArgs {
  std::string model;
  CommonFlags common;
  ResultOutputs outputs;      // --json, --export, --csv, --markdown, --plot (rank ratio and alpha by layer)
  std::string spectrum_plot;  // --spectrum-plot FILE: the singular values of the --show matrices
  std::vector<std::string> show;  // --show GLOB: which matrices --spectrum-plot draws
  bool values = false;            // --values: each matrix's singular values in the JSON
  StatsSelection selection;
  SpectrumOptions options;
  HubArgs hub;
};

CommandSpec spectrum_spec(SpectrumArgs& a);
SpectrumArgs parse_spectrum_args(const Args& args);  // throws Error(Usage)

}  // namespace ma::cli
