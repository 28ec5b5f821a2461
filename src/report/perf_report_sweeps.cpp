// Sections 3 to 5 of the efficiency study's Markdown (perf_report_parts.h): the roofline section's text and
// op-group table, the decode batch sweep with where each profile changes regime, the sensitivity grid with
// its fastest and slowest rows, and the training / prefill / decode limits with what binds each.
#include <algorithm>
#include <cmath>

#include "report/perf_report_parts.h"
#include "report/roofline_plot.h"

namespace ma::perf_md {
namespace {

std::string binding_resource(const std::string& regime) {
  if (regime == "compute") return "tensor-core throughput (P_peak x eta_tc)";
  if (regime == "memory") return "HBM bandwidth";
  if (regime == "network") return "interconnect bandwidth";
  return regime.empty() ? "unknown" : regime;
}

// The decode batch sweep, grouped by profile in the order first met, B ascending.
void batch_sweep(DocumentWriter& md, const std::vector<PerfResult>& sweep) {
  md.heading(3, "3.1 Decode batch sweep");
  if (sweep.empty()) {
    md.paragraph("No decode batch sweep was computed.");
    return;
  }
  md.paragraph(
      "Only the microbatch B varies; the KV length L stays at the report's value. Per execution "
      "profile (naive, efficient):");
  md.formula(
      "F_theory(B,L,m) = sum_i F_i(B,L,m)\n"
      "bytes_hbm(B,L,m) = sum_i (bytes_weights_i + bytes_activations_i + bytes_kv_i + bytes_temporary_i)\n"
      "AI_hbm = F_theory / bytes_hbm\n"
      "TF_est = F_theory / T_est / 1e12\n"
      "TF_roofline_hbm = min(P_peak, BW_hbm * AI_hbm / 1e12)   (an upper bound, not a claim)\n"
      "regime = argmax{T_comp, T_hbm, T_net}");
  std::vector<std::string> profiles;
  for (const PerfResult& r : sweep)
    if (std::find(profiles.begin(), profiles.end(), r.inputs.knobs.profile) == profiles.end())
      profiles.push_back(r.inputs.knobs.profile);
  std::vector<const PerfResult*> order;
  for (const PerfResult& r : sweep) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [&](const PerfResult* a, const PerfResult* b) {
    const auto pa = std::find(profiles.begin(), profiles.end(), a->inputs.knobs.profile);
    const auto pb = std::find(profiles.begin(), profiles.end(), b->inputs.knobs.profile);
    return pa != pb ? pa < pb : a->inputs.batch < b->inputs.batch;
  });
  std::vector<std::vector<std::string>> rows;
  for (const PerfResult* r : order)
    rows.push_back({r->inputs.knobs.profile, std::to_string(r->inputs.batch),
                    std::to_string(r->inputs.kv_len), brief_number(r->total.flops_theory),
                    brief_number(r->total.bytes_hbm()), brief_number(r->total.ai_hbm()),
                    brief_number(r->tf_est), brief_number(r->tf_roofline_hbm), duration_text(r->total.t_est),
                    r->total.regime, brief_number(r->tokens_per_s)});
  md.table({"profile", "B", "L", "F_theory", "bytes_hbm", "AI_hbm", "TF_est", "TF_roofline_hbm", "T_est",
            "regime", "tokens/s"},
           rows);
  // Where each profile changes regime.
  std::string summary;
  for (const std::string& p : profiles) {
    std::string runs;
    std::string regime;
    uint64_t first = 0, last = 0;
    const auto flush = [&] {
      if (regime.empty()) return;
      runs += (runs.empty() ? "" : ", ") + regime + " for B=" + std::to_string(first) +
              (last != first ? "-" + std::to_string(last) : "");
    };
    for (const PerfResult* r : order) {
      if (r->inputs.knobs.profile != p) continue;
      if (r->total.regime != regime) {
        flush();
        regime = r->total.regime;
        first = r->inputs.batch;
      }
      last = r->inputs.batch;
    }
    flush();
    summary += "- " + p + ": " + runs + "\n";
  }
  const PerfResult& any = sweep.front();
  md.paragraph(
      "Regimes along the sweep (ridge OI_knee = " + brief_number(any.hardware.ridge(perf_peak_dtype(any))) +
      " FLOP/byte; AI_hbm above it is on the compute side of the roofline, and a step can be "
      "compute-bound below it where eta_tc < 1 inflates F_realizable):\n" +
      summary.substr(0, summary.size() - 1));
}

}  // namespace

// 3. Roofline: the figure, the op groups, the sweep, the worked example.
void roofline(DocumentWriter& md, const PerfResult& r, const PerfSweeps& s) {
  md.heading(2, "3. Roofline Analysis");
  md.figure(s.roofline_svg, s.roofline_plot,
            "Roofline: attained TFLOP/s against arithmetic intensity, one panel per accelerator; roof = "
            "min(P_peak, BW_hbm x AI), ridge marked, regions shaded");
  const ComputeDType pd = perf_peak_dtype(r);
  md.paragraph("Ridge on " + r.hardware.name +
               ": OI_knee = P_peak / BW_hbm = " + brief_number(r.hardware.ridge(pd)) +
               " FLOP/byte. Points (per group of operations, this step):");
  std::vector<std::vector<std::string>> rows;
  for (const RooflinePoint& p : roofline_points(r))
    rows.push_back({p.label, brief_number(p.flops), brief_number(p.ai), brief_number(p.tflops), p.regime});
  md.table({"group", "F_theory", "AI_hbm (FLOP/byte)", "TF_est (TFLOP/s)", "regime"}, rows);
  batch_sweep(md, s.decode_batch_sweep);
  if (s.worked_example)
    worked_example(md, *s.worked_example);
  else
    md.paragraph("No worked example was computed (it needs a decode sweep point, B=128 preferred).");
}

// 4. The sensitivity grid, as passed.
void sensitivity(DocumentWriter& md, const std::vector<PerfResult>& grid) {
  md.heading(2, "4. Sensitivity Analysis");
  if (grid.empty()) {
    md.paragraph("No sensitivity grid was computed.");
    return;
  }
  md.paragraph(
      "Every combination of the execution knobs (section 6) on the same step; all other inputs held.");
  std::vector<std::vector<std::string>> rows;
  size_t fast = 0, slow = 0;
  for (size_t i = 0; i < grid.size(); ++i) {
    const PerfResult& r = grid[i];
    const ExecutionKnobs& k = r.inputs.knobs;
    rows.push_back({std::to_string(i + 1), mode_name(r) + " " + shape_text(r), brief_number(k.wrf_attention),
                    brief_number(k.wrf_dense), brief_number(k.wrf_moe), brief_number(k.act_fusion),
                    brief_number(k.elementwise), k.flash_attention ? "flash" : "naive",
                    duration_text(r.total.t_est), r.total.regime, brief_number(r.tf_est),
                    percent_text(r.mfu_est), brief_number(r.tokens_per_s)});
    if (r.total.t_est < grid[fast].total.t_est) fast = i;
    if (r.total.t_est > grid[slow].total.t_est) slow = i;
  }
  md.table({"#", "step", "WRF attn", "WRF dense", "WRF moe", "act fusion", "elementwise", "attention",
            "T_est", "regime", "TF_est", "MFU_est", "tokens/s"},
           rows);
  md.paragraph("Fastest: row " + std::to_string(fast + 1) + " (T_est " +
               duration_text(grid[fast].total.t_est) + ", " + grid[fast].total.regime +
               "-bound); slowest: row " + std::to_string(slow + 1) + " (T_est " +
               duration_text(grid[slow].total.t_est) + ", " + grid[slow].total.regime + "-bound).");
  // W_eff = W / WRF holds only for what fits on chip: rows whose factors ask for less say so, or their
  // near-equal times beside WRF 1 read as a knob that does nothing.
  std::string bounded, why;
  for (size_t i = 0; i < grid.size(); ++i)
    for (const std::string& a : grid[i].assumptions)
      if (a.starts_with("weight residency bounded by on-chip memory")) {
        bounded += (bounded.empty() ? "" : ", ") + std::to_string(i + 1);
        if (why.empty()) why = a;
      }
  if (!bounded.empty())
    md.paragraph("Rows " + bounded + " stream more weight bytes than W / WRF: " + why + " (row " +
                 bounded.substr(0, bounded.find(',')) + "'s figures).");
}

// 5. Training, prefill and decode: what binds each.
void limits(DocumentWriter& md, const std::vector<PerfResult>& lim) {
  md.heading(2, "5. Architectural Limits");
  if (lim.empty()) {
    md.paragraph("No training / prefill / decode limits were computed.");
    return;
  }
  std::vector<std::vector<std::string>> rows;
  std::string notes;
  for (const PerfResult& r : lim) {
    const OpCost& t = r.total;
    const ComputeDType pd = perf_peak_dtype(r);
    rows.push_back({mode_name(r), shape_text(r), brief_number(t.ai_hbm()), brief_number(r.hardware.ridge(pd)),
                    duration_text(t.t_comp), duration_text(t.t_hbm), duration_text(t.t_net),
                    duration_text(t.t_est), t.regime, binding_resource(t.regime), percent_text(r.mfu_est),
                    brief_number(r.tokens_per_s)});
    // The runner-up resource and how far behind it is.
    std::vector<std::pair<double, std::string>> times = {
        {t.t_comp, "T_comp"}, {t.t_hbm, "T_hbm"}, {t.t_net, "T_net"}};
    std::sort(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string line =
        "- " + mode_name(r) + ": " + t.regime + "-bound, limited by " + binding_resource(t.regime);
    if (times[1].first > 0 && std::isfinite(times[0].first))
      line += "; " + times[0].second + " = " + duration_text(times[0].first) + " is " +
              brief_number(times[0].first / times[1].first) + "x the next, " + times[1].second + " = " +
              duration_text(times[1].first);
    notes += line + "\n";
  }
  md.table({"step", "shape", "AI_hbm", "OI_knee", "T_comp", "T_hbm", "T_net", "T_est", "regime",
            "binding resource", "MFU_est", "tokens/s"},
           rows);
  md.paragraph(notes.substr(0, notes.size() - 1));
}

}  // namespace ma::perf_md
