// What every subcommand shares: output streams, colour decision, output files.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/option_table.h"
#include "io/output_file.h"
#include "report/run_info.h"

namespace ma::cli {

struct Output {
  bool color = false;  // stdout is a terminal and NO_COLOR is unset
  bool quiet = false;
  bool verbose = false;
  bool stdout_tty = false;
  bool stderr_tty = false;
};
Output detect_output(const CommonFlags& flags);

void print_stdout(std::string_view s);
// Now, as ISO 8601 UTC ("2026-11-26T08:45:29Z"): the timestamp of exports.
std::string utc_timestamp();
// The command line of this process (main records it once, before any command runs), for the exports.
void remember_command_line(const std::vector<std::string>& args);
// Now and this process's command line, redacted (report/run_info.h).
RunInfo run_info();

// Keeps a command's result alive until the process exits instead of destroying it: the OS reclaims the
// memory at once, while running the destructors of a 45,000-tensor inventory costs milliseconds (compilers
// and linkers do the same with -disable-free). Every kept object stays reachable from one list per type, so
// leak checkers are content however many models a command analyses.
template <typename T>
T& keep_until_exit(T&& value) {
  static auto* kept = new std::vector<T*>();
  kept->push_back(new T(std::move(value)));
  return *kept->back();
}
// Warnings and notes on stderr, one line each, never under --quiet. `subject` names the model a line is about
// where a command analyses several ("tiny-llama: warning: ..."): without it nothing in a log tells which
// model a warning belongs to. Empty for one model.
void print_warnings(const std::vector<std::string>& warnings, const Output& o, std::string_view subject = {});
void print_notes(const std::vector<std::string>& notes, const Output& o, std::string_view subject = {});
// An output file of a command: "-" is stdout; devices and pipes are written through; regular files atomically
// (io/output_file.h).
void write_output_file(const std::string& path, std::string_view content);
// A command's several output files, to appear together or not at all (io/output_file.h); "-" goes to stdout
// as print_stdout writes it.
OutputBatch command_outputs();

}  // namespace ma::cli
