#include "cli/output_options.h"

#include <algorithm>
#include <filesystem>

#include "cli/arg_values.h"
#include "cli/cli_common.h"
#include "core/error.h"
#include "report/diagram_png.h"

namespace ma::cli {

bool ResultOutputs::file_on_stdout() const {
  return names_stdout(json_file) || names_stdout(csv_file) || names_stdout(markdown_file) ||
         names_stdout(plot_file);
}

namespace {

// The flag as the user sent it there: "--json", "--export -", "--export /dev/stdout".
std::string sent_to_stdout(const OutputClaim& c) {
  return c.flag == "--json" ? c.flag : c.flag + " " + c.path;
}

// One spelling per file: "a.json", "./a.json", "$PWD/a.json" and a symlink to it are the same output. Made
// absolute first: weakly_canonical leaves a relative name whose file does not exist yet relative ("a.json")
// while "./a.json" comes back absolute, and the two would compare different.
std::filesystem::path identity(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return std::filesystem::path(path).lexically_normal();
  const std::filesystem::path p = std::filesystem::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : p;
}

// A device or FIFO takes each output in turn (write_output writes through them): /dev/null named twice is
// fine.
bool written_through(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  return !ec && (std::filesystem::is_character_file(st) || std::filesystem::is_fifo(st));
}

}  // namespace

void require_distinct_outputs(const std::vector<OutputClaim>& claims) {
  std::string named;
  int count = 0;
  for (const OutputClaim& c : claims)
    if (!c.path.empty() && names_stdout(c.path)) named += (count++ ? " and " : "") + sent_to_stdout(c);
  if (count > 1)
    throw Error(ErrorKind::Usage, "", named,
                "each writes to standard output, which carries one; send all but one to a file");
  for (size_t i = 0; i < claims.size(); ++i)
    for (size_t j = i + 1; j < claims.size(); ++j) {
      const OutputClaim &a = claims[i], &b = claims[j];
      if (a.path.empty() || names_stdout(a.path) || b.path.empty() || names_stdout(b.path)) continue;
      if (identity(a.path) == identity(b.path) && !written_through(a.path))
        throw Error(ErrorKind::Usage, a.path, a.flag + " and " + b.flag,
                    "both write this file, which would keep only the last; give each its own");
    }
}

bool claims_stdout(const std::vector<OutputClaim>& claims) {
  return std::any_of(claims.begin(), claims.end(),
                     [](const OutputClaim& c) { return !c.path.empty() && names_stdout(c.path); });
}

std::vector<OutputClaim> output_claims(const ResultOutputs& out, std::vector<OutputClaim> more) {
  std::vector<OutputClaim> claims = {{out.json ? "-" : "", "--json"},
                                     {out.json_file, "--export"},
                                     {out.csv_file, "--csv"},
                                     {out.markdown_file, "--markdown"},
                                     {out.plot_file, "--plot"}};
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
                   const std::string& console, OutputBatch files) {
  if (!out.plot_file.empty()) files.add(out.plot_file, diagram_file_bytes(r.plot_svg, out.plot_file));
  if (!out.json_file.empty()) files.add(out.json_file, r.json);
  if (!out.csv_file.empty()) files.add(out.csv_file, r.csv);
  if (!out.markdown_file.empty()) files.add(out.markdown_file, r.markdown);
  files.commit();
  if (out.json)
    print_stdout(r.json);
  else if (!quiet && !out.file_on_stdout() && !stdout_taken)
    print_stdout(console);
}

}  // namespace ma::cli
