// Subcommands. Each parses its own arguments and returns the process exit code; errors propagate as
// ma::Error to main(), which prints one line and maps them to exit codes.
#pragma once
#include <string>
#include <vector>

namespace ma::cli {

using Args = std::vector<std::string>;

int run_tensors(const Args& args);
int run_summary(const Args& args);
int run_download(const Args& args);
int run_stats(const Args& args);
int run_compare(const Args& args);
int run_perf(const Args& args);
std::string usage_text();

}  // namespace ma::cli
