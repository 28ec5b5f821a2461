#include "cli/cli_common.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "io/atomic_file.h"

namespace ma::cli {

Output detect_output(bool quiet) {
  Output o;
  o.quiet = quiet;
  const char* no_color = std::getenv("NO_COLOR");
  o.color = ::isatty(STDOUT_FILENO) && !(no_color && *no_color);
  o.stderr_tty = ::isatty(STDERR_FILENO);
  return o;
}

void print_stdout(std::string_view s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
}

void print_warnings(const std::vector<std::string>& warnings, const Output& o) {
  if (o.quiet) return;
  const bool color = o.stderr_tty && !std::getenv("NO_COLOR");
  for (const auto& w : warnings)
    std::fprintf(stderr, "%swarning:%s %s\n", color ? "\033[33m" : "", color ? "\033[0m" : "", w.c_str());
}

void write_output_file(const std::string& path, std::string_view content) {
  if (path == "-") {
    print_stdout(content);
    return;
  }
  write_file_atomically(path, content);
}

}  // namespace ma::cli
