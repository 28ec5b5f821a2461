// `modelanalyzer spectrum MODEL`: the singular values of every weight matrix and what they say (issue 16,
// seed 004's rank analysis), as console tables by layer, JSON, CSV and plots.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

#include "analysis/spectrum/model_spectrum.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/progress.h"
#include "cli/selection_options.h"
#include "cli/spectrum_args.h"
#include "cli/verbose_trace.h"
#include "cli/weights_source.h"
#include "core/error.h"
#include "core/glob.h"
#include "report/diagram_png.h"
#include "report/spectrum_plots.h"
#include "report/spectrum_report.h"

namespace ma::cli {

int run_spectrum(const Args& args) {
  SpectrumArgs a = parse_spectrum_args(args);
  Output out = detect_output(a.common);
  const auto [input, plan] = plan_weights(a.model, a.hub, a.selection, out);
  if (plan.items.empty()) throw_nothing_selected(a.model, a.selection, plan.unreadable);
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
  // A signal during the last matrix (its SVD is not interruptible) ends the run too, before any output.
  if (interrupted.load()) {
    std::fprintf(stderr, "modelanalyzer: interrupted; no output file was written\n");
    return kInterruptedExit;
  }
  spectrum.model_id = a.model;
  if (spectrum.matrices.empty() && spectrum.first_non_finite)
    throw Error(ErrorKind::Malformed, a.model, "tensors",
                "no matrix could be decomposed; the first: " + *spectrum.first_non_finite);
  if (spectrum.matrices.empty())
    throw Error(ErrorKind::NotFound, a.model, "tensors",
                "no 2-D or stacked 3-D weight matrix in the selection");

  // Everything rendered first, then written: a failure leaves no partial file.
  const RunInfo run = run_info();
  const ResultOutputs& o = a.outputs;
  RenderedResults r;
  if (o.json || !o.json_file.empty())
    stream_spectrum_json(spectrum, run, a.values, [&](std::string_view s) { r.json.append(s); });
  if (!o.csv_file.empty())
    r.csv = render_spectrum_csv(spectrum, input.model.root.string(), "", run.timestamp);
  if (!o.markdown_file.empty()) r.markdown = render_spectrum_markdown(spectrum, run);
  if (!o.plot_file.empty()) r.plot_svg = render_spectrum_trends_svg(spectrum);
  std::string curves;
  if (!a.spectrum_plot.empty()) {
    // By default the first layer's matrices: layer 0's, or the lowest a checkpoint holds (a slice of a
    // model), or every matrix where none sits in a layer. Only --show can name no matrix.
    std::optional<uint32_t> first_layer;
    for (const MatrixSpectrum& m : spectrum.matrices)
      if (m.layer && (!first_layer || *m.layer < *first_layer)) first_layer = m.layer;
    std::vector<const MatrixSpectrum*> shown;
    for (const MatrixSpectrum& m : spectrum.matrices) {
      const bool wanted = a.show.empty()
                              ? (!first_layer || m.layer == first_layer)
                              : std::any_of(a.show.begin(), a.show.end(),
                                            [&](const std::string& g) { return glob_match(g, m.name); });
      if (wanted) shown.push_back(&m);
    }
    if (shown.empty())
      throw Error(ErrorKind::NotFound, a.model, a.show.empty() ? "--spectrum-plot" : "--show",
                  a.show.empty() ? "no matrix was analysed to draw" : "no matrix matches");
    curves = render_singular_values_svg(spectrum, shown);
  }
  OutputBatch files = command_outputs();
  if (!a.spectrum_plot.empty()) files.add(a.spectrum_plot, diagram_file_bytes(curves, a.spectrum_plot));
  const bool console = !o.json && !out.quiet;
  write_results(o, r, out.quiet, a.spectrum_plot == "-",
                console ? render_spectrum_console(spectrum, out.color) : std::string(), std::move(files));
  return 0;
}

}  // namespace ma::cli
