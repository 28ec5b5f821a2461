// Seed 001's efficiency study, as Markdown (--report) or as one HTML page (--html): 1 architecture overview,
// 2 analytical model (per-op FLOPs, bytes, intensities and times, step totals), 3 roofline (the plot, the
// decode batch sweep, the worked example), 4 sensitivity grid, 5 architectural limits, 6 execution / kernel
// assumptions, appendix A derivations and appendix B checklist. Only renders: the caller runs
// model_performance() for the base case and every sweep point; every number printed is a PerfResult field (or
// a sum of the per-op fields, for the per-kind totals), and the worked example substitutes those same fields
// into its formulas.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/perf/perf_model.h"
#include "report/document_writer.h"
#include "report/run_info.h"

namespace ma {

struct PerfSweeps {
  std::vector<PerfResult> decode_batch_sweep;  // decode at several B, each under naive and efficient knobs
  std::vector<PerfResult> sensitivity;         // one result per combination of knob values
  std::vector<PerfResult> limits;              // training, prefill and decode (any order; one per mode)
  std::optional<PerfResult> worked_example;    // decode at B=128 when the sweep has it
  std::string model_id;                        // for the title and section 1; empty: "model"
  std::string roofline_plot;                   // file name of the roofline figure; empty: no link
  std::string roofline_svg;                    // the figure itself, inlined by the HTML page; empty: none
  RunInfo run;                                 // the line under the title; no timestamp: no line
};

void write_perf_document(DocumentWriter& w, const PerfResult& base, const PerfSweeps& s);
std::string render_perf_markdown(const PerfResult& base, const PerfSweeps& s);
std::string render_perf_html(const PerfResult& base, const PerfSweeps& s);

// The dtype whose peak is P_peak in `r`: the one (activation dtype first, then weight dtype, then any) that
// matches P_peak as implied by the result's own fields (P_effective x F_realizable / F_theory); without
// FLOPs, the wider of the activation and weight dtypes (a W8A16 GEMM runs in 16 bits).
ComputeDType perf_peak_dtype(const PerfResult& r);

}  // namespace ma
