// `modelanalyzer serve MODEL --hw h200 --tp 8 --concurrency 64`: what a serving engine delivers at a load
// (issue 14).
#include "analysis/model_report.h"
#include "analysis/perf/perf_model.h"
#include "analysis/serve/serve_precision.h"
#include "analysis/serve/serving_model.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/serve_args.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "core/units.h"
#include "model/inventory.h"
#include "report/serve_report.h"

namespace ma::cli {

int run_serve(const Args& args) {
  ServeArgs a = parse_serve_args(args);
  Output out = detect_output(a.common);
  const OpenedInventory opened = open_model_or_config(a.model, a.config_file, a.hub, out);
  if (a.model.empty()) a.model = a.config_file;
  Inventory& inv = *opened.inventory;
  ReportOptions options;
  options.model_id = a.model;
  options.skip_tokenizer = true;
  options.kv_dtype = a.request.kv_dtype;
  ModelReport report = build_model_report(inv, opened.opened.files, options);
  // Refused before any warning about the request: an encoder-only model serves no tokens at all.
  if (!has_decode_step(report))
    throw Error(ErrorKind::Usage, a.model, "", "an encoder-only model generates no tokens to serve");
  const uint64_t longest = a.request.isl + a.request.osl;  // a request's context at its last token
  if (auto w = context_beyond_maximum("--isl " + with_thousands(a.request.isl) + " + --osl " +
                                          with_thousands(a.request.osl) + " = " + with_thousands(longest),
                                      longest, report))
    print_warnings({*w}, out);
  if (!a.precision.empty()) a.request.precision = *serve_precision(a.precision, report.quantization);
  trace("timing decode and prefill steps at every load point");
  ServeResult result = estimate_serving(inv, report, a.request);
  result.model_id = a.model;

  // Everything rendered first, then written: a failure leaves no partial file.
  const RunInfo run = run_info();
  const ResultOutputs& o = a.outputs;
  RenderedResults r;
  if (!o.csv_file.empty()) r.csv = render_serve_csv(result);
  if (o.json || !o.json_file.empty())
    stream_serve_json(result, run, [&](std::string_view s) { r.json.append(s); });
  if (!o.markdown_file.empty()) r.markdown = render_serve_markdown(result, run);
  if (!o.plot_file.empty()) r.plot_svg = render_serve_svg(result);
  const bool console = !o.json && !out.quiet;
  write_results(o, r, out.quiet, false, console ? render_serve_console(result) : std::string());
  return 0;
}

}  // namespace ma::cli
