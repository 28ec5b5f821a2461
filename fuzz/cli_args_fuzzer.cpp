// Command-line parsing of every subcommand: any argument vector must parse or raise ma::Error(Usage) — no
// crash, no undefined number conversion (--tp 1e300, --top nan), no unbounded work. The input is the argument
// vector with '\0' between arguments; the first one picks the subcommand as main() does. Only parsing runs:
// no model is opened.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/compare_args.h"
#include "cli/download_args.h"
#include "cli/perf_args.h"
#include "cli/report_args.h"
#include "cli/stats_args.h"
#include "cli/tensors_args.h"
#include "core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string current;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(std::move(current));
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  args.push_back(std::move(current));
  const std::string command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (command == "tensors")
      ma::cli::parse_tensors_args(rest);
    else if (command == "stats")
      ma::cli::parse_stats_args(rest);
    else if (command == "compare")
      ma::cli::parse_compare_args(rest);
    else if (command == "perf")
      ma::cli::parse_perf_args(rest);
    else if (command == "download")
      ma::cli::parse_download_args(rest);
    else
      ma::cli::parse_report_args(args);
  } catch (const ma::Error& e) {
    if (e.kind() != ma::ErrorKind::Usage) __builtin_trap();  // parsing alone can only misuse the command line
  }
  return 0;
}
