// The subcommands. Each parses its own arguments from its option table (cli/option_table.h) and returns the
// process exit code; errors propagate as ma::Error to main(), which prints one line and maps them to exit
// codes.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ma::cli {

using Args = std::vector<std::string>;

int run_tensors(const Args& args);
int run_graph(const Args& args);
int run_summary(const Args& args);
int run_download(const Args& args);
int run_stats(const Args& args);
int run_compare(const Args& args);
int run_perf(const Args& args);
int run_spectrum(const Args& args);
int run_embeddings(const Args& args);
int run_plan(const Args& args);
int run_serve(const Args& args);
int run_build_config(const Args& args);

// build-config: the config was written, but a validation check failed (README, "Exit codes").
inline constexpr int kExitValidationFailed = 11;

struct Command {
  std::string_view name;  // "" for the report (`modelanalyzer MODEL...`)
  int (*run)(const Args&);
  std::string (*help)();  // `modelanalyzer NAME --help`
};
// nullptr when `name` is not a subcommand.
const Command* find_command(std::string_view name);
// The subcommand `word` looks like a typo of ("tensor" -> "tensors"), if any: such a word is read as a
// model, which main() says.
std::optional<std::string_view> command_like(std::string_view word);

// `modelanalyzer --help`: every command's usage and summary, the report's options, Hub options, exit codes.
std::string usage_text();

}  // namespace ma::cli
