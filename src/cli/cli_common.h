// What every subcommand shares: output streams, colour decision, atomic output files.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ma::cli {

struct Output {
  bool color = false;  // stdout is a terminal and NO_COLOR is unset
  bool quiet = false;
  bool stderr_tty = false;
};
Output detect_output(bool quiet);

void print_stdout(std::string_view s);

// Keeps a command's result alive until the process exits instead of destroying it: the OS reclaims the
// memory at once, while running the destructors of a 45,000-tensor inventory costs milliseconds (compilers
// and linkers do the same with -disable-free). The object stays reachable, so leak checkers are content.
template <typename T>
T& keep_until_exit(T&& value) {
  static T* kept = nullptr;
  kept = new T(std::move(value));
  return *kept;
}
void print_warnings(const std::vector<std::string>& warnings, const Output& o);
// Writes `content` to `path` through a temp file + rename; "-" means stdout.
void write_output_file(const std::string& path, std::string_view content);

}  // namespace ma::cli
