// The efficiency study's Markdown (perf_report.h): the document in order, each group of sections in its own
// file (perf_report_parts.h). Numbers are PerfResult fields, formatted by perf_md::num and its siblings; the
// only arithmetic is summing per-op fields into per-kind totals and comparing fields (which regime, which row
// is fastest). The worked example substitutes the same fields into each formula and shows the form that holds
// for them (the step time of a sequential model is a sum over operations, not a max over totals).
#include "report/perf_report.h"

#include <cmath>

#include "report/html_page.h"
#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/perf_report_parts.h"

namespace ma {

ComputeDType perf_peak_dtype(const PerfResult& r) {
  const Hardware& hw = r.hardware;
  const ComputeDType w = r.inputs.weight_dtype, a = r.inputs.act_dtype;
  const OpCost& t = r.total;
  if (t.flops_theory > 0 && t.flops_realizable > 0 && r.p_effective > 0) {
    const double implied = r.p_effective * t.flops_realizable / t.flops_theory;
    const auto matches = [&](ComputeDType d) {
      return hw.peak(d) > 0 && std::fabs(hw.peak(d) - implied) <= 1e-6 * implied;
    };
    if (matches(a)) return a;
    if (matches(w)) return w;
    for (int i = 0; i < kComputeDTypeCount; ++i)
      if (matches(static_cast<ComputeDType>(i))) return static_cast<ComputeDType>(i);
  }
  return bytes_per_element(w) > bytes_per_element(a) ? w : a;
}

void write_perf_document(DocumentWriter& md, const PerfResult& base, const PerfSweeps& s) {
  const std::string model = s.model_id.empty() ? "model" : s.model_id;
  md.heading(1, "Performance analysis: " + model);
  if (!s.run.timestamp.empty()) md.paragraph(run_info_paragraph(s.run));
  md.paragraph("The efficiency study for one " + perf_md::mode_name(base) + " step (" +
               perf_md::shape_text(base) + ") on " + base.hardware.name +
               ": FLOPs, bytes, arithmetic intensity and time per operation, the roofline, "
               "the decode batch sweep, the sensitivity to the execution knobs and the limits of training, "
               "prefill and decode. Figures are analytical estimates per GPU, not measurements.");
  perf_md::overview(md, base, model);
  perf_md::analytical(md, base);
  perf_md::roofline(md, base, s);
  perf_md::sensitivity(md, s.sensitivity);
  perf_md::limits(md, s.limits);
  perf_md::knobs_table(md, base.inputs.knobs);
  perf_md::appendix(md);
}

std::string render_perf_markdown(const PerfResult& base, const PerfSweeps& s) {
  MarkdownWriter md;
  write_perf_document(md, base, s);
  return md.take();
}

std::string render_perf_html(const PerfResult& base, const PerfSweeps& s) {
  HtmlWriter html;
  write_perf_document(html, base, s);
  return html_page("Performance analysis: " + (s.model_id.empty() ? std::string("model") : s.model_id),
                   html.take());
}

}  // namespace ma
