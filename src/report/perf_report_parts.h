// Internal to the efficiency study's document, Markdown or HTML (perf_report.h): the number formatting every
// section shares (perf_report_format.cpp) and the sections, one group per file: perf_report_model.cpp (1
// overview and hardware, 2 analytical model), perf_report_sweeps.cpp (3 roofline with the decode batch sweep,
// 4 sensitivity grid, 5 limits), perf_report_worked.cpp (3.2 worked example, 6 assumptions, appendices).
// perf_report.cpp puts them in order.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "analysis/perf/perf_model.h"
#include "core/units.h"
#include "report/document_writer.h"
#include "report/perf_report.h"

namespace ma::perf_md {

std::string upper(std::string_view s);
std::string mode_name(const PerfResult& r);
// "B=128, L=255" (decode) or "B=8, S=4096" (prefill, training).
std::string shape_text(const PerfResult& r);

// 1. Architecture overview and the hardware table.
void overview(DocumentWriter& md, const PerfResult& r, const std::string& model);
// 2. The per-op table (representative layers), per-kind totals, the step.
void analytical(DocumentWriter& md, const PerfResult& r);
// 3. Roofline: the figure, the op groups, the sweep, the worked example.
void roofline(DocumentWriter& md, const PerfResult& r, const PerfSweeps& s);
// 3.2 Every step of the worked example as a formula, its values and its result.
void worked_example(DocumentWriter& md, const PerfResult& w);
// 4. The sensitivity grid, as passed.
void sensitivity(DocumentWriter& md, const std::vector<PerfResult>& grid);
// 5. Training, prefill and decode: what binds each.
void limits(DocumentWriter& md, const std::vector<PerfResult>& lim);
// 6. Seed 001's execution / kernel assumptions table with the values in effect.
void knobs_table(DocumentWriter& md, const ExecutionKnobs& k);
// Appendix A (derivations) and appendix B (debugging checklist).
void appendix(DocumentWriter& md);

}  // namespace ma::perf_md
