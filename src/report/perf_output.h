// `modelanalyzer perf` on the console and as JSON: the step's totals (T_est and its parts, regime, FLOPs,
// bytes, AI, MFU, tokens/s), the operations grouped by kind, and the inputs and knobs used. The JSON carries
// every operation as well, with the same field names as the totals, and the efficiency study's sweeps.
#pragma once
#include <string>

#include "analysis/perf/perf_model.h"
#include "core/json_writer.h"
#include "report/perf_report.h"
#include "report/run_info.h"

namespace ma {

std::string render_perf_console(const PerfResult& r, const std::string& model_id, bool color);
// The step, its operations, and `study`: every number the Markdown report (render_perf_markdown) shows.
void stream_perf_json(const PerfResult& r, const PerfSweeps& study, const std::string& model_id,
                      const RunInfo& run, const JsonWriter::Sink& sink);

// The operations summed by kind (gemm, attention, moe, ssm, elementwise, embedding, network), timed as sums.
std::vector<OpCost> ops_by_kind(const PerfResult& r);

}  // namespace ma
