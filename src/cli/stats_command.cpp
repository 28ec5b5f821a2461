// `modelanalyzer stats MODEL`: per-tensor statistics of a local checkpoint (seed 001's dump_model_info,
// seed 004's analyze.py), streamed at memory speed. Outputs are rendered in full before any file is written,
// so Ctrl-C (exit 130) or a failure leaves no partial file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/model_weight_stats.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/model_folders.h"
#include "cli/model_source.h"
#include "cli/progress.h"
#include "cli/selection_options.h"
#include "cli/stats_args.h"
#include "cli/verbose_trace.h"
#include "cli/weights_source.h"
#include "core/error.h"
#include "core/units.h"
#include "report/diagram_png.h"
#include "report/markdown_writer.h"
#include "report/stats_plots.h"
#include "report/stats_report.h"

namespace ma::cli {
namespace {

// One model's scan; false when interrupted (Ctrl-C).
bool scan_model(const std::string& model_id, ModelWeightsInput input, StatsArgs& a, const Output& out,
                WeightStats& stats) {
  std::vector<std::string> warnings;
  if (!input.base_found_at.empty())
    print_notes({"adapter base model: " + input.base_found_at.string() + " (frozen)"}, out);
  PlannedScan plan = plan_scan(input, a.selection, warnings);
  trace("scanning " + std::to_string(plan.items.size()) + " tensors of " + model_id);
  print_warnings(warnings, out);
  if (plan.items.empty()) throw_nothing_selected(model_id, a.selection, plan.unreadable);
  const std::atomic<bool>& interrupted = interrupt_flag();
  ScanOptions& scan = a.scan;
  scan.cancel = &interrupted;
  ProgressLine progress(out.stderr_tty && !out.quiet, "scanning");
  scan.progress = [&](uint64_t done, uint64_t total) { progress.update(done, total); };
  try {
    stats = compute_weight_stats(plan, scan);
  } catch (const Error&) {
    progress.finish();
    if (interrupted.load()) return false;
    throw;
  }
  progress.finish();
  if (interrupted.load()) return false;  // a signal after the last unit's last check
  stats.model_id = model_id;
  if (!out.quiet) {
    // The size in binary units as everywhere else; the rate as StatsSummary::gb_per_s gives it.
    std::fprintf(stderr, "%s%llu tensors, %s scanned in %.2f s (%.2f GB/s)\n",
                 a.model == model_id ? "" : (model_id + ": ").c_str(),
                 static_cast<unsigned long long>(stats.summary.tensors),
                 human_bytes(stats.summary.bytes).c_str(), stats.summary.seconds,
                 stats.summary.gb_per_s().value_or(0.0));
  }
  return true;
}

}  // namespace

int run_stats(const Args& args) {
  StatsArgs a = parse_stats_args(args);
  const std::string& model = a.model;
  Output out = detect_output(a.common);
  // The models to scan: MODEL itself, or every model under a directory of models (model_id: its path there).
  std::vector<ModelToAnalyse> inputs = models_to_analyse(model, a.hub, a.base, out);
  const bool several = inputs.size() > 1;
  if (several && (!a.outputs.plot_file.empty() || !a.trends_file.empty() || !a.html_file.empty()))
    throw_one_model_figure(model,
                           !a.outputs.plot_file.empty() ? "--plot"
                           : !a.trends_file.empty()     ? "--trends"
                                                        : "--html",
                           inputs.size());

  std::vector<WeightStats> all;
  std::vector<std::string> roots;
  for (ModelToAnalyse& m : inputs) {
    roots.push_back(m.input.model.root.string());
    if (!scan_model(m.model_id, std::move(m.input), a, out, all.emplace_back())) {
      std::fprintf(stderr, "modelanalyzer: interrupted; no output file was written\n");
      return kInterruptedExit;
    }
  }

  // Everything rendered first, then written: a failure leaves no partial file. Several models: a JSON array,
  // one CSV (seed 004's model_id column tells the rows apart), the Markdown and console reports one after
  // another.
  const RunInfo run = run_info();
  std::string csv, markdown, console;
  std::vector<std::string> json_documents;
  for (size_t i = 0; i < all.size(); ++i) {
    if (a.outputs.json || !a.outputs.json_file.empty()) {
      std::string& one = json_documents.emplace_back();
      stream_stats_json(all[i], run, [&](std::string_view s) { one.append(s); });
    }
    if (!a.outputs.csv_file.empty())
      append_csv(csv, render_stats_csv(all[i], roots[i], inputs[i].revision, run.timestamp));
    if (!a.outputs.markdown_file.empty()) markdown += render_stats_markdown(all[i]);
    if (!a.outputs.json && !out.quiet)
      console += console_block(all[i].model_id, render_stats_console(all[i], out.color), several, i == 0);
  }
  const std::string json_text = json_documents.empty() ? std::string() : joined_json(json_documents);
  std::string plot = a.outputs.plot_file.empty() ? std::string() : render_distribution_grid_svg(all.front());
  std::string trends = a.trends_file.empty() ? std::string() : render_layer_trends_svg(all.front());
  const std::string html =
      a.html_file.empty() ? std::string()
                          : render_stats_html(all.front(), run, render_distribution_grid_svg(all.front()),
                                              render_layer_trends_svg(all.front()));
  OutputBatch files = command_outputs();
  if (!a.outputs.plot_file.empty())
    files.add(a.outputs.plot_file, diagram_file_bytes(plot, a.outputs.plot_file));
  if (!a.html_file.empty()) files.add(a.html_file, html);
  if (!a.trends_file.empty()) files.add(a.trends_file, diagram_file_bytes(trends, a.trends_file));
  if (!a.outputs.json_file.empty()) files.add(a.outputs.json_file, json_text);
  if (!a.outputs.csv_file.empty()) files.add(a.outputs.csv_file, csv);
  if (!a.outputs.markdown_file.empty()) {
    markdown += markdown_figures({{a.outputs.plot_file, "Per-tensor histograms (--plot)"},
                                  {a.trends_file, "Statistics by layer (--trends)"}},
                                 a.outputs.markdown_file);
    files.add(a.outputs.markdown_file, markdown);
  }
  files.commit();
  if (a.outputs.json)
    print_stdout(json_text);
  else if (!out.quiet && !a.outputs.file_on_stdout() && a.trends_file != "-" && !names_stdout(a.html_file))
    print_stdout(console);
  return 0;
}

}  // namespace ma::cli
