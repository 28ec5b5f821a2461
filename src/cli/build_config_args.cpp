#include "cli/build_config_args.h"

#include <optional>
#include <string>

#include "cli/arg_values.h"
#include "cli/hub_options.h"
#include "cli/output_options.h"
#include "core/error.h"
#include "io/output_file.h"

namespace ma::cli {
namespace {

// "1%", "0.5%" or "1" (percent either way), as a fraction.
double tolerance_arg(const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  return number_arg("--tolerance", percent ? text.substr(0, text.size() - 1) : text, 0, 100) / 100;
}

// --expect-params: a count spelt as the claims file spells one ("70B", "1.5B", "70.55 billion",
// "70,553,706,496") or a plain number ("70e9", "7000000000"), above 0 and at most a quadrillion.
double expected_parameters_arg(const std::string& text) {
  constexpr double kMaxParameters = 1e15;
  if (const std::optional<double> n = parse_parameter_count(text); n && *n > 0 && *n <= kMaxParameters)
    return *n;
  try {
    return positive_number_arg("--expect-params", text, kMaxParameters);
  } catch (const Error&) {
    throw Error(ErrorKind::Usage, "", "--expect-params",
                "expects a parameter count above 0 and at most 1e15 (70B, 1.5B, 70e9, 70.55 billion, "
                "70,553,706,496), got '" +
                    printable(text) + "'");
  }
}

}  // namespace

CommandSpec build_config_spec(BuildConfigArgs& a) {
  CommandSpec s;
  s.name = "build-config";
  s.operands = "MODEL";
  s.summary =
      "A layer-by-layer config for the Mantile performance simulator: every layer type mapped to a "
      "simulator\n"
      "class with exact parameter counts, validated against expected and published counts, and a gap report\n"
      "for each layer type the simulator lacks (MLA, Mamba, Gated DeltaNet, an untied LM head, ...).";
  s.operand = one_operand(a.model, s.name);
  Expectations& e = a.expect;
  // clang-format off
  const std::vector<Option> own = {
      {{"--out"}, "FILE.json", "the config to write (required; written even when validation fails)",
       [&a](const std::string& v) { a.out = v; }},
      {{"--gaps"}, "DIR", "directory for the gap reports, one Markdown file per unsupported layer type (required)",
       [&a](const std::string& v) { a.gaps = v; }},
      {{"--target-layers"}, "FILE", "the simulator's layer classes as JSON (default: Mantile's published classes)",
       [&a](const std::string& v) { a.target_layers = v; }},
      {{"--expect-params"}, "N", "expected total parameters: 70B, 1.5B, 70e9, 70.55 billion or 70,553,706,496",
       [&e](const std::string& v) { e.parameters = expected_parameters_arg(v); }},
      {{"--expect-layers"}, "N", "expected number of layers",
       [&e](const std::string& v) { e.layers = integer_arg("--expect-layers", v, 1, 1 << 20); }},
      {{"--tolerance"}, "P%", "a count passes within P% of --expect-params and of a published count's nominal "
                              "value, however rounded (default 1%: \"3B\" accepts 2.97B to 3.03B)",
       [&e](const std::string& v) { e.tolerance = tolerance_arg(v); }},
      {{"--claims"}, "FILE", "published counts, tab-separated (default: PARAM_COUNTS.tsv beside MODEL's directory)",
       [&a](const std::string& v) { a.claims = v; }},
  };
  // clang-format on
  s.options.insert(s.options.end(), own.begin(), own.end());
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

BuildConfigArgs parse_build_config_args(const Args& args) {
  BuildConfigArgs a = parse_model_command(args, build_config_spec);
  if (a.out.empty()) throw Error(ErrorKind::Usage, "", "--out", "is required: where to write the config");
  if (a.gaps.empty())
    throw Error(ErrorKind::Usage, "", "--gaps", "is required: where to write the gap reports");
  // Checked before anything is read or created: the reports go to a directory, which standard output is not,
  // and the config cannot be that directory (each report's own path is checked once the entries are known).
  if (names_stdout(a.gaps))
    throw Error(ErrorKind::Usage, a.gaps, "--gaps",
                "is a directory for the gap reports, one file each; standard output cannot hold them");
  require_distinct_outputs({{a.out, "--out"}, {a.gaps, "--gaps"}});
  return a;
}

}  // namespace ma::cli
