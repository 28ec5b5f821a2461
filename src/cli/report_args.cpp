#include "cli/report_args.h"

#include "cli/arg_values.h"
#include "cli/hub_options.h"
#include "cli/output_options.h"
#include "core/dtype.h"
#include "core/error.h"

namespace ma::cli {
namespace {

// Far beyond any real batch or context, small enough that batch x context x bytes per token stays exact.
constexpr uint64_t kMaxBatch = 1 << 20;
constexpr uint64_t kMaxContext = 1ull << 30;

DType kv_dtype(const std::string& text) {
  const std::optional<DType> d = dtype_from_any_name(text);
  if (!d)
    throw Error(
        ErrorKind::Usage, "", "--kv-dtype",
        "unknown dtype '" + printable(text) +
            "'; accepted: fp32, bf16, fp16, fp8, f8_e5m2, int8, f4, or any torch or safetensors dtype name");
  return *d;
}

}  // namespace

CommandSpec report_spec(ReportArgs& a) {
  CommandSpec s;
  s.operands = "MODEL [MODEL...]";
  s.summary =
      "The report: family, exact parameters, architecture, attention per layer, MoE, layer map,\n"
      "quantization, memory and KV cache, tokenizer, capabilities; several MODELs print a comparison table.";
  s.operand = [&a](const std::string& m) { a.models.push_back(m); };
  // clang-format off
  s.options = {
      {{"--detailed"}, "", "every section in full (per-layer tables, formulas)",
       [&a](const std::string&) { a.detailed = true; }},
      {{"--json"}, "", "the JSON export on stdout", [&a](const std::string&) { a.json = true; }},
      {{"--export"}, "FILE.json", "write the JSON export (- for stdout)",
       [&a](const std::string& v) { a.export_json = v; }},
      {{"--html"}, "FILE.html", "write the report as one self-contained HTML page (- for stdout)",
       [&a](const std::string& v) { a.export_html = v; }},
      {{"--export-markdown", "--markdown"}, "FILE.md", "write the Markdown export (- for stdout)",
       [&a](const std::string& v) { a.export_markdown = v; }},
      {{"--visualize"}, "", "draw the architecture (default file model_architecture.png)",
       [&a](const std::string&) { a.visualize = true; }},
      {{"--viz-style"}, "STYLE", "simple or detailed (default)",
       [&a](const std::string& v) { a.viz_style = choice_arg("--viz-style", v, {"simple", "detailed"}); }},
      {{"--viz-output"}, "FILE", "the diagram's file: .png or .svg (- for SVG on stdout)",
       [&a](const std::string& v) {
         a.viz_output = image_path_arg("--viz-output", v);
         a.visualize = true;  // naming the diagram's file asks for it (it was ignored without --visualize)
       }},
      {{"--base"}, "DIR", "a PEFT adapter's base model (default: found from the adapter's config)",
       [&a](const std::string& v) { a.base = v; }},
      {{"--batch"}, "N", "KV cache and memory for N sequences (default 1)",
       [&a](const std::string& v) { a.options.batch = integer_arg("--batch", v, 1, kMaxBatch); }},
      {{"--context"}, "N", "... of N tokens each (default: min(the model's maximum context, 8,192))",
       [&a](const std::string& v) { a.options.context = integer_arg("--context", v, 1, kMaxContext); }},
      {{"--kv-dtype"}, "DTYPE", "KV cache dtype: fp32, bf16, fp16, fp8, ... (default: the checkpoint's declared one, else the model's)",
       [&a](const std::string& v) { a.options.kv_dtype = kv_dtype(v); }},
      {{"--skip-tokenizer"}, "", "do not read tokenizer files",
       [&a](const std::string&) { a.options.skip_tokenizer = true; }},
  };
  // clang-format on
  add_common_options(s, a.common);
  add_hub_options(s, a.hub);
  return s;
}

std::vector<OutputClaim> output_claims(const ReportArgs& a) {
  return {{a.json ? "-" : "", "--json"},
          {a.export_json, "--export"},
          {a.export_markdown, "--export-markdown"},
          {a.export_html, "--html"},
          {a.visualize ? a.viz_output : "", "--viz-output"}};
}

ReportArgs parse_report_args(const Args& args) {
  ReportArgs a;
  parse_command_line(args, report_spec(a));
  a.hub.flags.quiet = a.common.quiet;  // the Hub settings warnings obey --quiet too
  if (a.models.empty()) throw Error(ErrorKind::Usage, "", "MODEL", "missing; see modelanalyzer --help");
  if (!a.viz_output.empty() && a.models.size() > 1)
    throw Error(ErrorKind::Usage, "", "--viz-output",
                "names one file; with several models each gets <model>_architecture.png");
  const char* export_flag = !a.export_json.empty()       ? "--export"
                            : !a.export_markdown.empty() ? "--export-markdown"
                            : !a.export_html.empty()     ? "--html"
                                                         : nullptr;
  if (export_flag && a.models.size() > 1)
    throw Error(ErrorKind::Usage, "", export_flag,
                "exports one model; analyse models one at a time to export each");
  if (a.viz_output.empty() && a.models.size() == 1) a.viz_output = "model_architecture.png";
  require_distinct_outputs(output_claims(a));
  return a;
}

}  // namespace ma::cli
