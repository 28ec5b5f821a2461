// What every subcommand shares: output streams, colour decision, atomic output files.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ma::cli {

struct Output {
  bool color = false;    // stdout is a terminal and NO_COLOR is unset
  bool quiet = false;
  bool stderr_tty = false;
};
Output detect_output(bool quiet);

void print_stdout(std::string_view s);
void print_warnings(const std::vector<std::string>& warnings, const Output& o);
// Writes `content` to `path` through a temp file + rename; "-" means stdout.
void write_output_file(const std::string& path, std::string_view content);

}  // namespace ma::cli
