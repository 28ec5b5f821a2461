// Each subcommand declares its options once, in a table: parsing, the errors for unknown options or missing
// values, and `--help` all come from it, so no flag is parsed but undocumented, or documented but unknown.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"

namespace ma::cli {

struct Option {
  std::vector<std::string_view> names;  // {"--quiet", "-q"}: the first is the one shown and named in errors
  std::string_view value;               // "" for a flag, else the value's placeholder ("FILE", "N")
  std::string_view help;                // one line; "repeatable" in it lets the option be given again
  std::function<void(const std::string& value)> set;  // called in command-line order; "" for a flag
};

struct CommandSpec {
  std::string_view name;      // "stats"; "" for the report (`modelanalyzer MODEL`)
  std::string_view operands;  // "MODEL", "A B"
  std::string_view summary;   // what the command does, one or two lines
  std::vector<Option> options;
  std::function<void(const std::string& operand)> operand;  // each non-option word
};

// Applies `args` to the spec: `--name value`, `--name=value`, flags, operands; `--` ends the options.
// Throws Error(Usage) naming the option for unknown options, missing values and bad values, and for a second
// value of an option that takes one (`--export a.json --export b.json`, under any of its names): only options
// whose help says "repeatable" collect several. A flag may be given twice.
void parse_command_line(const Args& args, const CommandSpec& spec);

// The command's `--help`: usage line, summary and the option table.
std::string command_help(const CommandSpec& spec);
// Just the option lines (for the main help's report options).
std::string option_lines(const std::vector<Option>& options);

// The operand handler of a command that takes exactly one (MODEL): a second one is a usage error.
std::function<void(const std::string&)> one_operand(std::string& slot, std::string_view command);
// Fails with "MODEL: missing; usage: ..." when the command's one operand was not given.
void require_operand(const std::string& value, const CommandSpec& spec);
// For commands that take MODEL or --config FILE (perf, serve): exactly one of them.
void require_model_or_config(const std::string& model, const std::string& config, const CommandSpec& spec);

// Parses a command that takes one MODEL and the Hub options (`A` has model, common and hub): the table, the
// operand check, and --quiet handed on to the Hub settings warnings.
template <typename A>
A parse_model_command(const Args& args, CommandSpec (*spec_of)(A&)) {
  A a;
  const CommandSpec spec = spec_of(a);
  parse_command_line(args, spec);
  require_operand(a.model, spec);
  a.hub.flags.quiet = a.common.quiet;
  return a;
}

// Options every subcommand accepts.
struct CommonFlags {
  bool quiet = false;    // nothing but errors on stderr, no console result
  bool verbose = false;  // timings, request counts and notes on stderr
};
void add_common_options(CommandSpec& spec, CommonFlags& flags);

}  // namespace ma::cli
