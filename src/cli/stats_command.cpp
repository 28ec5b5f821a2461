// `modelanalyzer stats MODEL`: per-tensor statistics of a local checkpoint (seed 001's dump_model_info,
// seed 004's analyze.py), streamed at memory speed. Outputs are rendered in full before any file is written,
// so Ctrl-C (exit 130) or a failure leaves no partial file.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <mutex>

#include "analysis/model_weight_stats.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/model_source.h"
#include "cli/progress.h"
#include "cli/stats_args.h"
#include "cli/verbose_trace.h"
#include "core/error.h"
#include "hub/hub_settings.h"
#include "hub/repo_ref.h"
#include "report/diagram_png.h"
#include "report/stats_plots.h"
#include "report/stats_report.h"

namespace ma::cli {
namespace {

// A Hub id names the weights only once they are downloaded: use the cached snapshot when it has them.
LocalModelFiles local_weights(const std::string& model, const HubArgs& hub) {
  std::error_code ec;
  if (std::filesystem::exists(model, ec)) return locate_local_model(model);
  std::optional<RepoRef> ref = parse_repo_ref(model);
  if (!ref) return locate_local_model(model);  // the "no such file" error
  if (hub.revision) ref->revision = *hub.revision;
  OpenedModel opened = open_model(
      model, HubArgs{HubFlags{std::nullopt, std::nullopt, false, true}, hub.revision, hub.file}, true);
  const LocalModelFiles& f = opened.files;
  if (f.fetched_headers.empty() && f.format != CheckpointFormat::None) return opened.files;
  throw Error(ErrorKind::NotFound, model, "",
              "statistics need the weights: run `modelanalyzer download " + model +
                  "` first (only headers are cached)");
}

}  // namespace

int run_stats(const Args& args) {
  StatsArgs a = parse_stats_args(args);
  const std::string& model = a.model;
  ScanOptions& scan = a.scan;
  Output out = detect_output(a.common);
  std::vector<std::string> warnings;
  HubSettings settings = hub_settings(a.hub.flags);
  trace_http(settings);
  trace("locating the weights of " + model);
  ModelWeightsInput input = weights_input(local_weights(model, a.hub), settings.cache_root, warnings, a.base);
  if (!input.base_found_at.empty())
    print_notes({"adapter base model: " + input.base_found_at.string() + " (frozen)"}, out);
  PlannedScan plan = plan_scan(input, a.selection, warnings);
  trace("scanning " + std::to_string(plan.items.size()) + " tensors");
  print_warnings(warnings, out);
  if (plan.items.empty())
    throw Error(ErrorKind::NotFound, model, "--include", "no tensor matches the selection");

  const std::atomic<bool>& interrupted = interrupt_flag();
  scan.cancel = &interrupted;
  ProgressLine progress(out.stderr_tty && !out.quiet, "scanning");
  scan.progress = [&](uint64_t done, uint64_t total) { progress.update(done, total); };
  WeightStats stats;
  try {
    stats = compute_weight_stats(plan, scan);
  } catch (const Error&) {
    progress.finish();
    if (interrupted.load()) {
      std::fprintf(stderr, "modelanalyzer: interrupted; no output file was written\n");
      return kInterruptedExit;
    }
    throw;
  }
  progress.finish();
  stats.model_id = model;

  // Everything rendered first, then written: a failure leaves no partial file.
  std::string json_text;
  if (a.outputs.json || !a.outputs.json_file.empty())
    stream_stats_json(stats, run_info(), [&](std::string_view s) { json_text.append(s); });
  std::string csv = a.outputs.csv_file.empty()
                        ? std::string()
                        : render_stats_csv(stats, input.model.root.string(), "", utc_timestamp());
  std::string markdown = a.outputs.markdown_file.empty() ? std::string() : render_stats_markdown(stats);
  std::string plot = a.outputs.plot_file.empty() ? std::string() : render_distribution_grid_svg(stats);
  std::string trends = a.trends_file.empty() ? std::string() : render_layer_trends_svg(stats);
  if (!a.outputs.plot_file.empty()) write_diagram_file(plot, a.outputs.plot_file);
  if (!a.trends_file.empty()) write_diagram_file(trends, a.trends_file);
  if (!a.outputs.json_file.empty()) write_output_file(a.outputs.json_file, json_text);
  if (!a.outputs.csv_file.empty()) write_output_file(a.outputs.csv_file, csv);
  if (!a.outputs.markdown_file.empty()) write_output_file(a.outputs.markdown_file, markdown);
  if (a.outputs.json)
    print_stdout(json_text);
  else if (!out.quiet && !a.outputs.file_on_stdout() && a.trends_file != "-")
    print_stdout(render_stats_console(stats, out.color));
  if (!out.quiet) {
    const double gb = static_cast<double>(stats.summary.bytes) / 1e9;
    std::fprintf(stderr, "%llu tensors, %.2f GB scanned in %.2f s (%.2f GB/s)\n",
                 static_cast<unsigned long long>(stats.summary.tensors), gb, stats.summary.seconds,
                 stats.summary.seconds > 0 ? gb / stats.summary.seconds : 0.0);
  }
  return 0;
}

}  // namespace ma::cli
