// `modelanalyzer spectrum MODEL`: the singular values of every weight matrix and what they say (issue 16,
// seed 004's rank analysis), as console tables by layer, JSON, CSV and plots.
#include <algorithm>
#include <cstdio>

#include "analysis/spectrum/model_spectrum.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "cli/spectrum_args.h"
#include "cli/verbose_trace.h"
#include "cli/weights_source.h"
#include "core/error.h"
#include "core/glob.h"
#include "hub/hub_settings.h"
#include "report/diagram_png.h"
#include "report/spectrum_plots.h"
#include "report/spectrum_report.h"

namespace ma::cli {

int run_spectrum(const Args& args) {
  SpectrumArgs a = parse_spectrum_args(args);
  Output out = detect_output(a.common);
  HubSettings settings = hub_settings(a.hub.flags);
  trace_http(settings);
  trace("locating the weights of " + a.model);
  std::vector<std::string> warnings;
  ModelWeightsInput input = weights_input(local_weights(a.model, a.hub), settings.cache_root, warnings);
  PlannedScan plan = plan_scan(input, a.selection, warnings);
  print_warnings(warnings, out);
  if (plan.items.empty()) throw Error(ErrorKind::NotFound, a.model, "--include", "no tensor matches the selection");
  trace("decomposing the matrices of " + std::to_string(plan.items.size()) + " tensors");

  const std::atomic<bool>& interrupted = interrupt_flag();
  a.options.cancel = &interrupted;
  ProgressLine progress(out.stderr_tty && !out.quiet, "decomposing");
  a.options.progress = [&](size_t done, size_t total) { progress.update(done, total); };
  ModelSpectrum spectrum;
  try {
    spectrum = compute_model_spectrum(plan, a.options);
  } catch (const Error&) {
    progress.finish();
    if (interrupted.load()) {
      std::fprintf(stderr, "modelanalyzer: interrupted; no output file was written\n");
      return kInterruptedExit;
    }
    throw;
  }
  progress.finish();
  spectrum.model_id = a.model;
  if (spectrum.matrices.empty())
    throw Error(ErrorKind::NotFound, a.model, "tensors", "no 2-D or stacked 3-D weight matrix in the selection");

  // Everything rendered first, then written: a failure leaves no partial file.
  const RunInfo run = run_info();
  std::string json;
  if (a.outputs.json || !a.outputs.json_file.empty())
    stream_spectrum_json(spectrum, run, a.values, [&](std::string_view s) { json.append(s); });
  const std::string csv = a.outputs.csv_file.empty()
                              ? std::string()
                              : render_spectrum_csv(spectrum, input.model.root.string(), "", run.timestamp);
  const std::string markdown =
      a.outputs.markdown_file.empty() ? std::string() : render_spectrum_markdown(spectrum, run);
  const std::string trends = a.outputs.plot_file.empty() ? std::string() : render_spectrum_trends_svg(spectrum);
  std::string curves;
  if (!a.spectrum_plot.empty()) {
    std::vector<const MatrixSpectrum*> shown;
    for (const MatrixSpectrum& m : spectrum.matrices) {
      const bool wanted = a.show.empty() ? (m.layer && *m.layer == 0)
                                         : std::any_of(a.show.begin(), a.show.end(),
                                                       [&](const std::string& g) { return glob_match(g, m.name); });
      if (wanted) shown.push_back(&m);
    }
    if (shown.empty()) throw Error(ErrorKind::NotFound, a.model, "--show", "no matrix matches");
    curves = render_singular_values_svg(spectrum, shown);
  }
  if (!a.outputs.plot_file.empty()) write_diagram_file(trends, a.outputs.plot_file);
  if (!a.spectrum_plot.empty()) write_diagram_file(curves, a.spectrum_plot);
  if (!a.outputs.json_file.empty()) write_output_file(a.outputs.json_file, json);
  if (!a.outputs.csv_file.empty()) write_output_file(a.outputs.csv_file, csv);
  if (!a.outputs.markdown_file.empty()) write_output_file(a.outputs.markdown_file, markdown);
  if (a.outputs.json)
    print_stdout(json);
  else if (!out.quiet && !a.outputs.file_on_stdout() && a.spectrum_plot != "-")
    print_stdout(render_spectrum_console(spectrum, out.color));
  return 0;
}

}  // namespace ma::cli
