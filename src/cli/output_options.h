// The result outputs that stats and compare share: the JSON on stdout or in a file, CSV, Markdown and a plot.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_table.h"

namespace ma::cli {

struct ResultOutputs {
  bool json = false;                                          // the JSON on stdout
  std::string json_file, csv_file, markdown_file, plot_file;  // "-": stdout
  // The console table is left out when another output already goes to stdout.
  bool file_on_stdout() const;
};

// An output that would go to standard output, named by the flag that sends it there.
struct StdoutClaim {
  bool claimed;
  std::string flag;  // "--json", "--export -", ...
};
// Standard output carries one document, whole: two claims would interleave there (a JSON parser then fails).
// Throws Usage naming the claims when more than one is made.
void require_one_stdout(const std::vector<StdoutClaim>& claims);
// ResultOutputs' claims, then a command's own (`more`).
std::vector<StdoutClaim> stdout_claims(const ResultOutputs& out, std::vector<StdoutClaim> more = {});

// --json, --export, --csv, --markdown (alias --export-markdown), --plot; `plot_help` says what is drawn.
void add_result_output_options(CommandSpec& spec, ResultOutputs& out, std::string_view plot_help);

// The documents of one command, rendered before anything is written (a failure leaves no partial file).
struct RenderedResults {
  std::string json, csv, markdown;
  std::string plot_svg;  // the --plot figure
};
// Writes the plot, the JSON, CSV and Markdown files that `out` names; then stdout: the JSON with --json, else
// `console` unless --quiet or another output took stdout (`stdout_taken`: a command's own "-" outputs).
void write_results(const ResultOutputs& out, const RenderedResults& r, bool quiet, bool stdout_taken,
                   const std::string& console);

}  // namespace ma::cli
