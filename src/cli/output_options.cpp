#include "cli/output_options.h"

#include "cli/arg_values.h"
#include "cli/cli_common.h"
#include "core/error.h"
#include "report/diagram_png.h"

namespace ma::cli {

bool ResultOutputs::file_on_stdout() const {
  return json_file == "-" || csv_file == "-" || markdown_file == "-" || plot_file == "-";
}

void require_one_stdout(const std::vector<StdoutClaim>& claims) {
  std::string named;
  int count = 0;
  for (const StdoutClaim& c : claims)
    if (c.claimed) named += (count++ ? " and " : "") + c.flag;
  if (count > 1)
    throw Error(ErrorKind::Usage, "", named,
                "each writes to standard output, which carries one; send all but one to a file");
}

std::vector<StdoutClaim> stdout_claims(const ResultOutputs& out, std::vector<StdoutClaim> more) {
  std::vector<StdoutClaim> claims = {{out.json, "--json"},
                                     {out.json_file == "-", "--export -"},
                                     {out.csv_file == "-", "--csv -"},
                                     {out.markdown_file == "-", "--markdown -"},
                                     {out.plot_file == "-", "--plot -"}};
  claims.insert(claims.end(), more.begin(), more.end());
  return claims;
}

void add_result_output_options(CommandSpec& spec, ResultOutputs& out, std::string_view plot_help) {
  // clang-format off
  spec.options.push_back({{"--json"}, "", "the result as JSON on stdout", [&out](const std::string&) { out.json = true; }});
  spec.options.push_back({{"--export"}, "FILE.json", "write the JSON (- for stdout)",
                          [&out](const std::string& v) { out.json_file = v; }});
  spec.options.push_back({{"--csv"}, "FILE", "write the CSV (- for stdout)",
                          [&out](const std::string& v) { out.csv_file = v; }});
  spec.options.push_back({{"--markdown", "--export-markdown"}, "FILE.md", "write the Markdown (- for stdout)",
                          [&out](const std::string& v) { out.markdown_file = v; }});
  spec.options.push_back({{"--plot"}, "FILE", plot_help,
                          [&out](const std::string& v) { out.plot_file = image_path_arg("--plot", v); }});
  // clang-format on
}

void write_results(const ResultOutputs& out, const RenderedResults& r, bool quiet, bool stdout_taken,
                   const std::string& console) {
  if (!out.plot_file.empty()) write_diagram_file(r.plot_svg, out.plot_file);
  if (!out.json_file.empty()) write_output_file(out.json_file, r.json);
  if (!out.csv_file.empty()) write_output_file(out.csv_file, r.csv);
  if (!out.markdown_file.empty()) write_output_file(out.markdown_file, r.markdown);
  if (out.json)
    print_stdout(r.json);
  else if (!quiet && !out.file_on_stdout() && !stdout_taken)
    print_stdout(console);
}

}  // namespace ma::cli
