// `modelanalyzer stats MODEL`: per-tensor statistics of a local checkpoint (seed 001's dump_model_info,
// seed 004's analyze.py), streamed at memory speed. Outputs are rendered in full before any file is written,
// so Ctrl-C (exit 130) or a failure leaves no partial file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/model_weight_stats.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/model_source.h"
#include "cli/progress.h"
#include "cli/selection_options.h"
#include "cli/stats_args.h"
#include "cli/verbose_trace.h"
#include "cli/weights_source.h"
#include "core/error.h"
#include "core/units.h"
#include "hub/hub_settings.h"
#include "hub/repo_ref.h"
#include "report/diagram_png.h"
#include "report/stats_plots.h"
#include "report/stats_report.h"

namespace ma::cli {
namespace {

// Seed 004's `--model_path data/models`: a directory that is no model itself but holds models (data/models/
// org/name), each found by a walk of at most three levels that stops at the first model on a path. Symlinks
// are not followed, so a link cycle cannot make the walk endless.
// A model found under a directory of models: its id there, and the commit of a Hugging Face cache snapshot.
struct FoundModel {
  std::string id, revision;
  LocalModelFiles files;
};

// "models--org--name/snapshots/<commit>" (the Hugging Face cache, seed 004's "every cached repo") is the
// repo org/name at that commit; any other path is its own id.
FoundModel named(const std::string& rel, LocalModelFiles files) {
  constexpr std::string_view kRepo = "models--", kSnapshots = "/snapshots/";
  const size_t snap = rel.find(kSnapshots);
  if (rel.rfind(kRepo, 0) == 0 && snap != std::string::npos &&
      rel.find('/', snap + kSnapshots.size()) == std::string::npos) {
    std::string repo = rel.substr(kRepo.size(), snap - kRepo.size());
    if (const size_t dash = repo.find("--"); dash != std::string::npos) repo.replace(dash, 2, "/");
    return {repo, rel.substr(snap + kSnapshots.size()), std::move(files)};
  }
  return {rel, "", std::move(files)};
}

std::vector<FoundModel> models_under(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  constexpr int kMaxDepth = 3;
  std::vector<FoundModel> found;
  std::vector<std::pair<fs::path, int>> pending = {{root, 0}};
  while (!pending.empty()) {
    auto [dir, depth] = pending.back();
    pending.pop_back();
    std::error_code ec;
    std::vector<fs::path> children;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
      if (e.is_directory(ec) && !e.is_symlink(ec)) children.push_back(e.path());
    std::sort(children.begin(), children.end(), std::greater<>());  // popped in name order
    for (const fs::path& c : children) {
      std::optional<LocalModelFiles> m;
      try {
        m = locate_local_model(c.string());
      } catch (const Error&) {
      }
      if (m && m->format != CheckpointFormat::None)
        found.push_back(named(fs::relative(c, root).generic_string(), std::move(*m)));
      else if (depth + 1 < kMaxDepth)
        pending.emplace_back(c, depth + 1);
    }
  }
  std::sort(found.begin(), found.end(), [](const FoundModel& x, const FoundModel& y) {
    return std::tie(x.id, x.revision) < std::tie(y.id, y.revision);
  });
  return found;
}

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
    // The size in binary units as everywhere else; the rate in decimal GB/s, as disks and buses are rated.
    const double gb = static_cast<double>(stats.summary.bytes) / 1e9;
    std::fprintf(stderr, "%s%llu tensors, %s scanned in %.2f s (%.2f GB/s)\n",
                 a.model == model_id ? "" : (model_id + ": ").c_str(),
                 static_cast<unsigned long long>(stats.summary.tensors),
                 human_bytes(stats.summary.bytes).c_str(), stats.summary.seconds,
                 stats.summary.seconds > 0 ? gb / stats.summary.seconds : 0.0);
  }
  return true;
}

}  // namespace

int run_stats(const Args& args) {
  StatsArgs a = parse_stats_args(args);
  const std::string& model = a.model;
  Output out = detect_output(a.common);
  HubSettings settings = hub_settings(a.hub.flags);
  trace_http(settings);
  trace("locating the weights of " + model);
  // The models to scan: MODEL itself, or every model under a directory of models (model_id: its path there).
  std::vector<std::pair<std::string, ModelWeightsInput>> inputs;
  std::vector<std::string> revisions;  // per input: a cache snapshot's commit, else empty
  std::error_code ec;
  std::vector<std::string> warnings;
  if (std::filesystem::is_directory(model, ec)) {
    try {
      inputs.emplace_back(model,
                          weights_input(locate_local_model(model), settings.cache_root, warnings, a.base));
    } catch (const Error&) {
      auto under = models_under(model);
      if (under.empty()) throw;
      for (FoundModel& f : under) {
        inputs.emplace_back(f.id, weights_input(std::move(f.files), settings.cache_root, warnings));
        revisions.push_back(f.revision);
      }
    }
  } else {
    inputs.emplace_back(model,
                        weights_input(local_weights(model, a.hub), settings.cache_root, warnings, a.base));
  }
  revisions.resize(inputs.size());
  print_warnings(warnings, out);
  const bool several = inputs.size() > 1;
  if (several && (!a.outputs.plot_file.empty() || !a.trends_file.empty() || !a.html_file.empty()))
    throw Error(ErrorKind::Usage, model, "--plot",
                "draws one model: name one of the " + std::to_string(inputs.size()) + " models under it");

  std::vector<WeightStats> all;
  std::vector<std::string> roots;
  for (auto& [id, input] : inputs) {
    roots.push_back(input.model.root.string());
    if (!scan_model(id, std::move(input), a, out, all.emplace_back())) {
      std::fprintf(stderr, "modelanalyzer: interrupted; no output file was written\n");
      return kInterruptedExit;
    }
  }

  // Everything rendered first, then written: a failure leaves no partial file. Several models: a JSON array,
  // one CSV (seed 004's model_id column tells the rows apart), the Markdown and console reports one after
  // another.
  const RunInfo run = run_info();
  std::string json_text, csv, markdown, console;
  if (several) json_text = "[\n";
  for (size_t i = 0; i < all.size(); ++i) {
    if (a.outputs.json || !a.outputs.json_file.empty()) {
      std::string one;
      stream_stats_json(all[i], run, [&](std::string_view s) { one.append(s); });
      if (several) {
        while (!one.empty() && one.back() == '\n') one.pop_back();
        one += i + 1 < all.size() ? ",\n" : "\n";
      }
      json_text += one;
    }
    if (!a.outputs.csv_file.empty()) {
      std::string part = render_stats_csv(all[i], roots[i], revisions[i], run.timestamp);
      csv += i == 0 ? part : part.substr(part.find('\n') + 1);  // one header
    }
    if (!a.outputs.markdown_file.empty()) markdown += render_stats_markdown(all[i]);
    if (!a.outputs.json && !out.quiet)
      console += (several ? std::string(i ? "\n" : "") + "MODEL " + all[i].model_id + "\n" : std::string()) +
                 render_stats_console(all[i], out.color);
  }
  if (several) json_text += "]\n";
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
  if (!a.outputs.markdown_file.empty()) files.add(a.outputs.markdown_file, markdown);
  files.commit();
  if (a.outputs.json)
    print_stdout(json_text);
  else if (!out.quiet && !a.outputs.file_on_stdout() && a.trends_file != "-" && !names_stdout(a.html_file))
    print_stdout(console);
  return 0;
}

}  // namespace ma::cli
