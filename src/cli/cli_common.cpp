#include "cli/cli_common.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "cli/stdout_status.h"
#include "cli/verbose_trace.h"
#include "core/text.h"
#include "io/output_file.h"

namespace ma::cli {

Output detect_output(const CommonFlags& flags) {
  Output o;
  o.quiet = flags.quiet;
  o.verbose = flags.verbose && !flags.quiet;
  const char* no_color = std::getenv("NO_COLOR");
  o.stdout_tty = ::isatty(STDOUT_FILENO);
  o.color = o.stdout_tty && !(no_color && *no_color);
  o.stderr_tty = ::isatty(STDERR_FILENO);
  enable_trace(o.verbose);
  return o;
}

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {
std::string& command_line() {
  static std::string line = "modelanalyzer";
  return line;
}
}  // namespace

void remember_command_line(const std::vector<std::string>& args) {
  command_line() = command_line_text(args);
}

RunInfo run_info() {
  return {utc_timestamp(), command_line()};
}

void print_stdout(std::string_view s) {
  if (std::fwrite(s.data(), 1, s.size(), stdout) != s.size()) note_stdout_error();
}

namespace {
// "name: " before a line about one of several models; nothing for one. The name is shown like every other
// untrusted text on the terminal.
std::string subject_prefix(std::string_view subject) {
  return subject.empty() ? std::string() : terminal_safe(subject) + ": ";
}
}  // namespace

void print_warnings(const std::vector<std::string>& warnings, const Output& o, std::string_view subject) {
  if (o.quiet) return;
  const char* no_color = std::getenv("NO_COLOR");
  const bool color = o.stderr_tty && !(no_color && *no_color);
  const std::string prefix = subject_prefix(subject);
  for (const auto& w : warnings)
    std::fprintf(stderr, "%s%swarning:%s %s\n", prefix.c_str(), color ? "\033[33m" : "",
                 color ? "\033[0m" : "", terminal_safe(w).c_str());
}

void print_notes(const std::vector<std::string>& notes, const Output& o, std::string_view subject) {
  if (o.quiet) return;
  const std::string prefix = subject_prefix(subject);
  for (const auto& n : notes) std::fprintf(stderr, "%snote: %s\n", prefix.c_str(), terminal_safe(n).c_str());
}

OutputBatch command_outputs() {
  return OutputBatch(print_stdout);
}

void write_output_file(const std::string& path, std::string_view content) {
  if (names_stdout(path)) {
    print_stdout(content);
    return;
  }
  write_output(path, content);
}

}  // namespace ma::cli
