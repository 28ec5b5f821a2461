// `modelanalyzer stats MODEL`: per-tensor statistics of a local checkpoint (seed 001's dump_model_info,
// seed 004's analyze.py), streamed at memory speed. Outputs are rendered in full before any file is written,
// so Ctrl-C (exit 130) or a failure leaves no partial file.
#include <cmath>
#include <chrono>
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
#include "core/error.h"
#include "hub/hub_settings.h"
#include "hub/repo_ref.h"
#include "report/diagram_png.h"
#include "report/stats_plots.h"
#include "report/stats_report.h"

namespace ma::cli {
namespace {

double parse_double(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v >= 0) || !std::isfinite(v))
    throw Error(ErrorKind::Usage, "", flag, "expects a non-negative number, got '" + printable(text) + "'");
  return v;
}

uint32_t parse_count(const std::string& flag, const std::string& text, uint32_t max) {
  char* end = nullptr;
  unsigned long v = std::strtoul(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || v == 0 || v > max)
    throw Error(ErrorKind::Usage, "", flag, "expects an integer from 1 to " + std::to_string(max));
  return static_cast<uint32_t>(v);
}

std::pair<uint32_t, uint32_t> parse_layers(const std::string& text) {
  size_t dash = text.find('-');
  std::string a = text.substr(0, dash), b = dash == std::string::npos ? a : text.substr(dash + 1);
  auto num = [&](const std::string& s) {
    char* end = nullptr;
    unsigned long v = std::strtoul(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || v > 1u << 24)
      throw Error(ErrorKind::Usage, "", "--layers", "expects N or A-B (layer indices), got '" + printable(text) + "'");
    return static_cast<uint32_t>(v);
  };
  auto r = std::make_pair(num(a), num(b));
  if (r.first > r.second) throw Error(ErrorKind::Usage, "", "--layers", "the range's start is after its end");
  return r;
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A Hub id names the weights only once they are downloaded: use the cached snapshot when it has them.
LocalModelFiles local_weights(const std::string& model, const HubArgs& hub) {
  std::error_code ec;
  if (std::filesystem::exists(model, ec)) return locate_local_model(model);
  std::optional<RepoRef> ref = parse_repo_ref(model);
  if (!ref) return locate_local_model(model);  // the "no such file" error
  if (hub.revision) ref->revision = *hub.revision;
  OpenedModel opened = open_model(model, HubArgs{HubFlags{std::nullopt, std::nullopt, false, true}, hub.revision}, true);
  if (opened.files.fetched_headers.empty() && (opened.files.index || !opened.files.safetensors.empty()))
    return opened.files;
  throw Error(ErrorKind::NotFound, model, "", "statistics need the weights: run `modelanalyzer download " + model +
                                                  "` first (only headers are cached)");
}

}  // namespace

int run_stats(const Args& args) {
  std::string model, json_file, csv_file, markdown_file, plot_file, trends_file;
  std::optional<std::filesystem::path> base;  // a PEFT adapter's base model
  bool json = false, quiet = false;
  StatsSelection sel;
  ScanOptions scan;
  HubArgs hub;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw Error(ErrorKind::Usage, "", a, "needs a value");
      return args[++i];
    };
    if (take_hub_arg(args, i, hub)) continue;
    if (a == "--json") json = true;
    else if (a == "--quiet" || a == "-q") quiet = true;
    else if (a == "--export") json_file = value();
    else if (a == "--csv") csv_file = value();
    else if (a == "--export-markdown" || a == "--markdown") markdown_file = value();
    else if (a == "--plot") plot_file = value();
    else if (a == "--trends") trends_file = value();
    else if (a == "--base") base = value();
    else if (a == "--include") sel.include.push_back(value());
    else if (a == "--exclude") sel.exclude.push_back(value());
    else if (a == "--layers") sel.layers = parse_layers(value());
    else if (a == "--eps") scan.eps = parse_double(a, value());
    else if (a == "--bins") scan.bins = parse_count(a, value(), 4096);
    else if (a == "--threads") scan.threads = parse_count(a, value(), 256);
    else if (!a.empty() && a[0] == '-') throw Error(ErrorKind::Usage, "", a, "unknown option for 'stats'; see modelanalyzer --help");
    else if (model.empty()) model = a;
    else throw Error(ErrorKind::Usage, "", a, "'stats' takes one MODEL");
  }
  if (model.empty()) throw Error(ErrorKind::Usage, "", "MODEL", "missing; usage: modelanalyzer stats MODEL [--json]");

  Output out = detect_output(quiet);
  std::vector<std::string> warnings;
  HubSettings settings = hub_settings(hub.flags);
  ModelWeightsInput input = weights_input(local_weights(model, hub), settings.cache_root, warnings, base);
  if (!input.base_found_at.empty() && !quiet)
    std::fprintf(stderr, "adapter base model: %s (frozen)\n", input.base_found_at.c_str());
  PlannedScan plan = plan_scan(input, sel, warnings);
  print_warnings(warnings, out);
  if (plan.items.empty()) throw Error(ErrorKind::NotFound, model, "--include", "no tensor matches the selection");

  const std::atomic<bool>& interrupted = interrupt_flag();
  scan.cancel = &interrupted;
  ProgressLine progress(out.stderr_tty && !quiet, "scanning");
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
  if (json || !json_file.empty()) stream_stats_json(stats, [&](std::string_view s) { json_text.append(s); });
  std::string csv = csv_file.empty() ? std::string() : render_stats_csv(stats, input.model.root.string(), "", utc_now());
  std::string markdown = markdown_file.empty() ? std::string() : render_stats_markdown(stats);
  std::string plot = plot_file.empty() ? std::string() : render_distribution_grid_svg(stats);
  std::string trends = trends_file.empty() ? std::string() : render_layer_trends_svg(stats);
  if (!plot_file.empty()) write_diagram_file(plot, plot_file);
  if (!trends_file.empty()) write_diagram_file(trends, trends_file);
  if (!json_file.empty()) write_output_file(json_file, json_text);
  if (!csv_file.empty()) write_output_file(csv_file, csv);
  if (!markdown_file.empty()) write_output_file(markdown_file, markdown);
  if (json) print_stdout(json_text);
  else if (!quiet && csv_file != "-" && markdown_file != "-") print_stdout(render_stats_console(stats, out.color));
  if (!quiet) {
    const double gb = static_cast<double>(stats.summary.bytes) / 1e9;
    std::fprintf(stderr, "%llu tensors, %.2f GB scanned in %.2f s (%.2f GB/s)\n",
                 static_cast<unsigned long long>(stats.summary.tensors), gb, stats.summary.seconds,
                 stats.summary.seconds > 0 ? gb / stats.summary.seconds : 0.0);
  }
  return 0;
}

}  // namespace ma::cli
