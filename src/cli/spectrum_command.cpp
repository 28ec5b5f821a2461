// `modelanalyzer spectrum MODEL`: the singular values of every weight matrix and what they say (issue 16,
// seed 004's rank analysis), as console tables by layer, JSON, CSV and plots.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/spectrum/model_spectrum.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/model_folders.h"
#include "cli/progress.h"
#include "cli/selection_options.h"
#include "cli/spectrum_args.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "core/glob.h"
#include "report/diagram_png.h"
#include "report/markdown_writer.h"
#include "report/spectrum_plots.h"
#include "report/spectrum_report.h"

namespace ma::cli {

namespace {

// One model's spectrum (`model.model_id` in it); false when interrupted (Ctrl-C).
bool decompose_model(ModelToAnalyse& model, SpectrumArgs& a, const Output& out, ModelSpectrum& spectrum) {
  std::vector<std::string> warnings;
  const PlannedScan plan = plan_scan(model.input, a.selection, warnings);
  print_warnings(warnings, out);
  if (plan.items.empty()) throw_nothing_selected(model.where, a.selection, plan.unreadable);
  trace("decomposing the matrices of " + std::to_string(plan.items.size()) + " tensors of " + model.model_id);

  const std::atomic<bool>& interrupted = interrupt_flag();
  a.options.cancel = &interrupted;
  ProgressLine progress(out.stderr_tty && !out.quiet, "decomposing");
  a.options.progress = [&](size_t done, size_t total) { progress.update(done, total); };
  try {
    spectrum = compute_model_spectrum(plan, a.options);
  } catch (const Error&) {
    progress.finish();
    if (interrupted.load()) return false;
    throw;
  }
  progress.finish();
  // A signal during the last matrix (its SVD is not interruptible) ends the run too, before any output.
  if (interrupted.load()) return false;
  spectrum.model_id = model.model_id;
  if (spectrum.matrices.empty() && spectrum.first_non_finite)
    throw Error(ErrorKind::Malformed, model.where, "tensors",
                "no matrix could be decomposed; the first: " + *spectrum.first_non_finite);
  if (spectrum.matrices.empty())
    throw Error(ErrorKind::NotFound, model.where, "tensors",
                "no 2-D or stacked 3-D weight matrix in the selection");
  return true;
}

}  // namespace

// MODEL is what `stats` takes: a checkpoint, a downloaded Hub id, or a directory of models, each decomposed
// in turn (a JSON array, one CSV told apart by model_id, a console block per model).
int run_spectrum(const Args& args) {
  SpectrumArgs a = parse_spectrum_args(args);
  Output out = detect_output(a.common);
  std::vector<ModelToAnalyse> inputs = models_to_analyse(a.model, a.hub, std::nullopt, out);
  const bool several = inputs.size() > 1;
  if (several && (!a.outputs.plot_file.empty() || !a.spectrum_plot.empty()))
    throw_one_model_figure(a.model, !a.outputs.plot_file.empty() ? "--plot" : "--spectrum-plot",
                           inputs.size());
  std::vector<ModelSpectrum> all;
  for (ModelToAnalyse& m : inputs)
    if (!decompose_model(m, a, out, all.emplace_back())) {
      std::fprintf(stderr, "modelanalyzer: interrupted; no output file was written\n");
      return kInterruptedExit;
    }

  // Everything rendered first, then written: a failure leaves no partial file.
  const RunInfo run = run_info();
  const ResultOutputs& o = a.outputs;
  const bool console = !o.json && !out.quiet;
  RenderedResults r;
  std::vector<std::string> json_documents;
  std::string console_text;
  for (size_t i = 0; i < all.size(); ++i) {
    if (o.json || !o.json_file.empty()) {
      std::string& one = json_documents.emplace_back();
      stream_spectrum_json(all[i], run, a.values, [&](std::string_view s) { one.append(s); });
    }
    if (!o.csv_file.empty())
      append_csv(r.csv, render_spectrum_csv(all[i], inputs[i].input.model.root.string(), inputs[i].revision,
                                            run.timestamp));
    if (!o.markdown_file.empty()) r.markdown += render_spectrum_markdown(all[i], run);
    if (console)
      console_text +=
          console_block(all[i].model_id, render_spectrum_console(all[i], out.color), several, i == 0);
  }
  if (!json_documents.empty()) r.json = joined_json(json_documents);
  const ModelSpectrum& spectrum = all.front();  // the figures draw one model
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
      throw Error(ErrorKind::NotFound, inputs.front().where, a.show.empty() ? "--spectrum-plot" : "--show",
                  a.show.empty() ? "no matrix was analysed to draw" : "no matrix matches");
    curves = render_singular_values_svg(spectrum, shown);
  }
  if (!o.markdown_file.empty())
    r.markdown += markdown_figures(
        {{o.plot_file, "Spectrum by layer (--plot)"}, {a.spectrum_plot, "Singular values (--spectrum-plot)"}},
        o.markdown_file);
  OutputBatch files = command_outputs();
  if (!a.spectrum_plot.empty()) files.add(a.spectrum_plot, diagram_file_bytes(curves, a.spectrum_plot));
  write_results(o, r, out.quiet, a.spectrum_plot == "-", console_text, std::move(files));
  return 0;
}

}  // namespace ma::cli
