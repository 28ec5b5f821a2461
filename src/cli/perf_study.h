// The parts of `perf` beyond one step: the efficiency study's decode batch sweep (naive and efficient), the
// sensitivity grid (medium profile, full combinational), the architectural limits of training / prefill /
// decode, the worked example at B = 128, the Markdown report built from them, and the multi-chip roofline
// plot.
#pragma once
#include <string>

#include "analysis/model_report.h"
#include "analysis/perf/perf_model.h"
#include "cli/perf_args.h"
#include "model/inventory.h"
#include "report/perf_report.h"

namespace ma::cli {

struct PerfStudyFiles {
  std::string markdown;  // empty unless --report
  std::string html;      // empty unless --html
  std::string svg;       // empty unless --plot
};

// The steps beside `base` that the report and `--json` show (cheap: ~50 runs of the analytical model).
// `grid`: the sensitivity grid's size — small (WRF 1/4 x attention naive/flash), medium (seed 001's default:
// WRF 1/2/4 x fusion 1/0.5 x elementwise 1/0.7 x attention) or large (WRF 1/2/4/8 x fusion 1/0.75/0.5 x
// elementwise 1/0.85/0.7 x attention).
PerfSweeps perf_sweeps(const Inventory& inv, const ModelReport& report, const PerfResult& base,
                       const std::string& grid = "medium");

PerfStudyFiles render_perf_study(const Inventory& inv, const ModelReport& report, const PerfResult& base,
                                 PerfSweeps study, const PerfArgs& args);
void write_perf_study(const PerfStudyFiles& files, const PerfArgs& args);

}  // namespace ma::cli
