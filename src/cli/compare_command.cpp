// `modelanalyzer compare A B`: per-tensor drift between two checkpoints of the same architecture (seed 001's
// "Comparing Checkpoints"), ranked and flagged; console, JSON, CSV, Markdown and a per-layer plot.
#include <cmath>
#include <cstdio>

#include "analysis/weight_compare.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "report/compare_report.h"
#include "report/diagram_png.h"
#include "report/drift_plot.h"

namespace ma::cli {
namespace {

double non_negative(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v >= 0) || !std::isfinite(v))
    throw Error(ErrorKind::Usage, "", flag, "expects a non-negative number, got '" + printable(text) + "'");
  return v;
}

}  // namespace

int run_compare(const Args& args) {
  std::vector<std::string> models;
  std::string json_file, csv_file, markdown_file, plot_file;
  bool json = false, quiet = false;
  size_t top = 20;
  CompareOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw Error(ErrorKind::Usage, "", a, "needs a value");
      return args[++i];
    };
    if (a == "--json") json = true;
    else if (a == "--quiet" || a == "-q") quiet = true;
    else if (a == "--export") json_file = value();
    else if (a == "--csv") csv_file = value();
    else if (a == "--export-markdown" || a == "--markdown") markdown_file = value();
    else if (a == "--plot") plot_file = value();
    else if (a == "--threshold") options.mean_threshold = non_negative(a, value());
    else if (a == "--rel-threshold") options.rel_l2_threshold = non_negative(a, value());
    else if (a == "--top") top = static_cast<size_t>(non_negative(a, value()));
    else if (!a.empty() && a[0] == '-') throw Error(ErrorKind::Usage, "", a, "unknown option for 'compare'; see modelanalyzer --help");
    else models.push_back(a);
  }
  if (models.size() != 2) throw Error(ErrorKind::Usage, "", "A B", "'compare' takes two local checkpoints");
  Output out = detect_output(quiet);
  std::vector<std::string> warnings;
  WeightComparison c = compare_weights(locate_local_model(models[0]), locate_local_model(models[1]), options, warnings);
  c.a = models[0];
  c.b = models[1];
  print_warnings(warnings, out);
  if (c.tensors.empty() && c.missing_in_b.empty() && c.extra_in_b.empty())
    throw Error(ErrorKind::NotFound, models[0], "", "no tensors to compare");

  std::string json_text;
  if (json || !json_file.empty()) stream_compare_json(c, [&](std::string_view s) { json_text.append(s); });
  std::string csv = csv_file.empty() ? std::string() : render_compare_csv(c);
  std::string markdown = markdown_file.empty() ? std::string() : render_compare_markdown(c, top);
  std::string plot = plot_file.empty() ? std::string() : render_drift_by_layer_svg(c);
  if (!plot_file.empty()) write_diagram_file(plot, plot_file);
  if (!json_file.empty()) write_output_file(json_file, json_text);
  if (!csv_file.empty()) write_output_file(csv_file, csv);
  if (!markdown_file.empty()) write_output_file(markdown_file, markdown);
  if (json) print_stdout(json_text);
  else if (!quiet && csv_file != "-" && markdown_file != "-") print_stdout(render_compare_console(c, top, out.color));
  return 0;
}

}  // namespace ma::cli
