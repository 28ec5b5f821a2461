#include "cli/compare_args.h"

#include "cli/arg_values.h"
#include "core/error.h"

namespace ma::cli {

CommandSpec compare_spec(CompareArgs& a) {
  CommandSpec s;
  s.name = "compare";
  s.operands = "A B";
  s.summary =
      "Per-tensor drift between two local checkpoints: mean drift, std ratio, ||B-A||/||A||, cosine,\n"
      "max |B-A|; per layer; the most changed and the flagged tensors.";
  s.operand = [&a](const std::string& m) {
    if (a.models.size() == 2)
      throw Error(ErrorKind::Usage, "", printable(m), "'compare' takes two checkpoints");
    a.models.push_back(m);
  };
  add_result_output_options(s, a.outputs, "drift by layer: .png or .svg (- for SVG on stdout)");
  // clang-format off
  const std::vector<Option> own = {
      {{"--threshold"}, "T", "flag |mean drift| > T (default 0.1)",
       [&a](const std::string& v) { a.options.mean_threshold = number_arg("--threshold", v, 0, 1e300); }},
      {{"--rel-threshold"}, "R", "flag ||B-A||/||A|| > R (default 0.5; 0: off)",
       [&a](const std::string& v) { a.options.rel_l2_threshold = number_arg("--rel-threshold", v, 0, 1e300); }},
      {{"--cos-threshold"}, "C", "flag cosine < C (default 0.9; -1: off)",
       [&a](const std::string& v) { a.options.cosine_threshold = number_arg("--cos-threshold", v, -1, 1); }},
      {{"--max-diff"}, "M", "flag max |B-A| > M (default: off; 0: any difference)",
       [&a](const std::string& v) { a.options.max_abs_threshold = number_arg("--max-diff", v, 0, 1e300); }},
      {{"--top"}, "N", "most changed tensors and layers listed (default 20)",
       [&a](const std::string& v) { a.top = static_cast<size_t>(integer_arg("--top", v, 0, 1u << 30)); }},
  };
  // clang-format on
  s.options.insert(s.options.end(), own.begin(), own.end());
  add_common_options(s, a.common);
  return s;
}

CompareArgs parse_compare_args(const Args& args) {
  CompareArgs a;
  parse_command_line(args, compare_spec(a));
  if (a.models.size() != 2) throw Error(ErrorKind::Usage, "", "A B", "'compare' takes two local checkpoints");
  require_distinct_outputs(output_claims(a.outputs));
  return a;
}

}  // namespace ma::cli
