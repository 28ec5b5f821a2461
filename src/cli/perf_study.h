// The parts of `perf` beyond one step: seed 001's decode batch sweep (naive and efficient), the sensitivity
// grid (medium profile, full combinational), the architectural limits of training / prefill / decode, the
// worked example at B = 128, the Markdown report built from them, and the multi-chip roofline plot.
#pragma once
#include <string>

#include "analysis/model_report.h"
#include "analysis/perf/perf_model.h"
#include "cli/perf_args.h"
#include "model/inventory.h"

namespace ma::cli {

struct PerfStudyFiles {
  std::string markdown;  // empty unless --report
  std::string svg;       // empty unless --plot
};

PerfStudyFiles render_perf_study(const Inventory& inv, const ModelReport& report, const PerfResult& base,
                                 const PerfArgs& args);
void write_perf_study(const PerfStudyFiles& files, const PerfArgs& args);

}  // namespace ma::cli
