// `modelanalyzer plan MODEL --gpu SPEC`: will the model fit these devices, split how, at what context and
// batch, in which precision, how fast (issue 13; seeds 000 and 002's first question).
#include "analysis/model_report.h"
#include "analysis/plan/plan.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/plan_args.h"
#include "cli/verbose_trace.h"
#include "cli/weights_source.h"
#include "core/units.h"
#include "model/inventory.h"
#include "report/plan_plot.h"
#include "report/plan_report.h"

namespace ma::cli {

int run_plan(const Args& args) {
  PlanArgs a = parse_plan_args(args);
  Output out = detect_output(a.common);
  print_warnings(a.warnings, out);
  const OpenedInventory opened = open_inventory(a.model, a.hub, out);
  Inventory& inv = *opened.inventory;
  ReportOptions options;
  options.model_id = a.model;
  options.skip_tokenizer = true;
  options.kv_dtype = a.kv_dtype;
  a.request.kv_dtype = a.kv_dtype;
  options.context = a.request.context;
  ModelReport report = build_model_report(inv, opened.opened.files, options);
  if (a.request.context)
    if (auto w = context_beyond_maximum("--context " + with_thousands(*a.request.context), *a.request.context,
                                        report))
      print_warnings({*w}, out);
  trace("sizing every split and searching the largest context and batch");
  Plan plan = make_plan(inv, report, a.request);
  plan.model_id = a.model;
  if (a.read_weights) {
    trace("reading every weight for the quantization hints");
    const PlannedWeights w = plan_weights(a.model, a.hub, StatsSelection{}, out);
    add_sensitivity(plan.conversion, compute_weight_stats(w.plan, ScanOptions{}));
  }

  // Everything rendered first, then written: a failure leaves no partial file.
  const RunInfo run = run_info();
  const ResultOutputs& o = a.outputs;
  RenderedResults r;
  if (o.json || !o.json_file.empty())
    stream_plan_json(plan, run, [&](std::string_view s) { r.json.append(s); });
  if (!o.csv_file.empty()) r.csv = render_plan_csv(plan);
  if (!o.markdown_file.empty()) r.markdown = render_plan_markdown(plan, run);
  if (!o.plot_file.empty()) r.plot_svg = render_plan_svg(plan);
  const bool console = !o.json && !out.quiet;
  write_results(o, r, out.quiet, false, console ? render_plan_console(plan, out.color) : std::string());
  return 0;
}

}  // namespace ma::cli
