#include "cli/stats_args.h"

#include "cli/arg_values.h"
#include "cli/hub_options.h"
#include "cli/selection_options.h"
#include "core/error.h"

namespace ma::cli {

CommandSpec stats_spec(StatsArgs& a) {
  CommandSpec s;
  s.name = "stats";
  s.operands = "MODEL";
  s.summary =
      "Per-tensor statistics of the weights: mean, std, min, max, abs max, L2, zeros, |x|<=eps, NaN/Inf,\n"
      "percentiles, kurtosis, histogram; trainable vs frozen for PEFT adapters; distribution plots.";
  s.operand = one_operand(a.model, s.name);
  add_result_output_options(s, a.outputs, "histogram grid: .png or .svg (- for SVG on stdout)");
  // clang-format off
  const std::vector<Option> own = {
      {{"--trends"}, "FILE", "std and abs max by layer: .png or .svg",
       [&a](const std::string& v) { a.trends_file = image_path_arg("--trends", v); }},
      {{"--html"}, "FILE.html", "the report, histograms and trends as one self-contained page (- for stdout)",
       [&a](const std::string& v) { a.html_file = v; }},
      {{"--eps"}, "E", "|x| <= E counts as near zero (default 1e-6)",
       [&a](const std::string& v) { a.scan.eps = number_arg("--eps", v, 0, 1e300); }},
      {{"--bins"}, "N", "histogram bins (default 64)",
       [&a](const std::string& v) { a.scan.bins = static_cast<uint32_t>(integer_arg("--bins", v, 1, 4096)); }},
      {{"--threads"}, "N", "scanning threads (default: one per core)",
       [&a](const std::string& v) { a.scan.threads = static_cast<unsigned>(integer_arg("--threads", v, 1, 256)); }},
      {{"--base"}, "DIR", "a PEFT adapter's base model (default: found from the adapter's config)",
       [&a](const std::string& v) { a.base = v; }},
  };
  // clang-format on
  s.options.insert(s.options.end(), own.begin(), own.end());
  add_selection_options(s, a.selection);
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

StatsArgs parse_stats_args(const Args& args) {
  StatsArgs a = parse_model_command(args, stats_spec);
  require_distinct_outputs(output_claims(a.outputs, {{a.trends_file, "--trends"}, {a.html_file, "--html"}}));
  return a;
}

}  // namespace ma::cli
