// The result outputs that stats and compare share: the JSON on stdout or in a file, CSV, Markdown and a plot.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_common.h"
#include "cli/option_table.h"
#include "io/output_file.h"

namespace ma::cli {

struct ResultOutputs {
  bool json = false;                                          // the JSON on stdout
  std::string json_file, csv_file, markdown_file, plot_file;  // "-" (or /dev/stdout, names_stdout): stdout
  // The console table is left out when another output already goes to stdout.
  bool file_on_stdout() const;
};

// Where one output goes, named by its flag: a file, "-" for standard output, "" when not asked for.
struct OutputClaim {
  std::string path;
  std::string flag;  // "--json", "--export", ...
};
// Each output needs a place of its own. Standard output carries one document, whole: two there would
// interleave (a JSON parser then fails). Two outputs to one file would leave only the last one written.
// Throws Usage naming both flags.
void require_distinct_outputs(const std::vector<OutputClaim>& claims);
// True when one of the claims is standard output ("-" or another name of it: io/output_file.h names_stdout).
bool claims_stdout(const std::vector<OutputClaim>& claims);
// ResultOutputs' claims, then a command's own (`more`).
std::vector<OutputClaim> output_claims(const ResultOutputs& out, std::vector<OutputClaim> more = {});

// --json, --export, --csv, --markdown (alias --export-markdown), --plot; `plot_help` says what is drawn.
void add_result_output_options(CommandSpec& spec, ResultOutputs& out, std::string_view plot_help);

// The documents of one command, rendered before anything is written (a failure leaves no partial file).
struct RenderedResults {
  std::string json, csv, markdown;
  std::string plot_svg;  // the --plot figure
};
// Writes the plot, the JSON, CSV and Markdown files that `out` names, with `files` (a command's own outputs,
// already added), all together or none; then stdout: the JSON with --json, else `console` unless --quiet or
// another output took stdout (`stdout_taken`: a command's own "-" outputs).
void write_results(const ResultOutputs& out, const RenderedResults& r, bool quiet, bool stdout_taken,
                   const std::string& console, OutputBatch files = command_outputs());

}  // namespace ma::cli
