#include "cli/option_table.h"

#include <algorithm>

#include "core/error.h"
#include "core/nearest_name.h"

namespace ma::cli {
namespace {

const Option* find_option(const CommandSpec& spec, std::string_view name) {
  for (const Option& o : spec.options)
    if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) return &o;
  return nullptr;
}

std::string command_words(const CommandSpec& spec) {
  return "modelanalyzer " + (spec.name.empty() ? std::string() : std::string(spec.name) + " ");
}

// " (did you mean --json?)" for a name that is a typo of one of the command's options, else "".
std::string suggestion(const CommandSpec& spec, std::string_view typed) {
  std::vector<std::string_view> names;
  for (const Option& o : spec.options) names.insert(names.end(), o.names.begin(), o.names.end());
  return did_you_mean(nearest_name(typed, names));
}

// An option whose value is a file or directory (its placeholder says FILE or DIR).
bool names_a_path(const Option& o) {
  return o.value.find("FILE") != std::string_view::npos || o.value.find("DIR") != std::string_view::npos;
}

// An option that collects its values (--include GLOB): its help says "repeatable", so that what --help
// promises and what the parser accepts cannot drift apart.
bool option_repeatable(const Option& o) {
  return o.help.find("repeatable") != std::string_view::npos;
}

// A second value of a one-value option would replace the first without a word (`--export a --export b`
// wrote b only), so it is refused. A flag given twice asks for the same thing twice and is let be.
void refuse_second_value(const Option& o, const std::string& name, std::vector<const Option*>& valued,
                         std::vector<std::string>& spelled) {
  if (o.value.empty() || option_repeatable(o)) return;
  const auto it = std::find(valued.begin(), valued.end(), &o);
  if (it == valued.end()) {
    valued.push_back(&o);
    spelled.push_back(name);
    return;
  }
  const std::string& first = spelled[static_cast<size_t>(it - valued.begin())];
  // The values are not shown: one may be a token.
  throw Error(ErrorKind::Usage, "", name,
              "given twice" + (first != name ? " (first as " + first + ")" : std::string()) +
                  "; it takes one value, and the second would replace the first");
}

}  // namespace

void parse_command_line(const Args& args, const CommandSpec& spec) {
  bool options_done = false;
  std::vector<const Option*> valued;  // the one-value options given so far, and how each was spelled
  std::vector<std::string> spelled;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      spec.operand(arg);  // includes "-" (stdin/stdout) and anything after "--"
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    const size_t eq = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string::npos;
    const std::string name = arg.substr(0, eq);
    const Option* o = find_option(spec, name);
    if (!o)
      throw Error(ErrorKind::Usage, "", printable(name),
                  "unknown option for '" + command_words(spec) + "...'" + suggestion(spec, name) + "; see " +
                      command_words(spec) + "--help");
    if (o->value.empty()) {
      if (eq != std::string::npos) throw Error(ErrorKind::Usage, "", name, "takes no value");
      o->set("");
      continue;
    }
    if (eq == std::string::npos && i + 1 >= args.size())
      throw Error(ErrorKind::Usage, "", name, "needs a value (" + std::string(o->value) + ")");
    const std::string value = eq != std::string::npos ? arg.substr(eq + 1) : args[++i];
    // `--export "$OUT"` with OUT unset would otherwise write nothing, and say nothing.
    if (value.empty() && names_a_path(*o))
      throw Error(ErrorKind::Usage, "", name, "needs a file name, and was given an empty one");
    refuse_second_value(*o, name, valued, spelled);
    o->set(value);
  }
}

std::string option_lines(const std::vector<Option>& options) {
  std::vector<std::string> left;
  size_t width = 0;
  for (const Option& o : options) {
    std::string l;
    for (std::string_view n : o.names) l += (l.empty() ? "" : ", ") + std::string(n);
    if (!o.value.empty()) l += " " + std::string(o.value);
    width = std::max(width, l.size());
    left.push_back(std::move(l));
  }
  width = std::min<size_t>(width, 28);
  std::string out;
  for (size_t i = 0; i < options.size(); ++i) {
    std::string line = "  " + left[i];
    if (left[i].size() > width)
      line += "\n" + std::string(width + 2, ' ');
    else
      line += std::string(width - left[i].size(), ' ');
    out += line + "  " + std::string(options[i].help) + "\n";
  }
  return out;
}

std::string command_help(const CommandSpec& spec) {
  return "usage: " + command_words(spec) + std::string(spec.operands) + " [options]\n\n" +
         std::string(spec.summary) + "\n\noptions:\n" + option_lines(spec.options);
}

std::function<void(const std::string&)> one_operand(std::string& slot, std::string_view command) {
  return [&slot, command](const std::string& operand) {
    if (!slot.empty())
      throw Error(ErrorKind::Usage, "", printable(operand), "'" + std::string(command) + "' takes one MODEL");
    slot = operand;
  };
}

void require_operand(const std::string& value, const CommandSpec& spec) {
  if (value.empty())
    throw Error(ErrorKind::Usage, "", std::string(spec.operands),
                "missing; usage: " + command_words(spec) + std::string(spec.operands) + " [options]; see " +
                    command_words(spec) + "--help");
}

void require_model_or_config(const std::string& model, const std::string& config, const CommandSpec& spec) {
  if (!model.empty() && !config.empty())
    throw Error(ErrorKind::Usage, "", "--config",
                "names the model already: give MODEL or --config, not both");
  if (config.empty()) require_operand(model, spec);
}

void add_common_options(CommandSpec& spec, CommonFlags& flags) {
  // clang-format off
  spec.options.push_back({{"--quiet", "-q"}, "", "print nothing but errors",
                          [&flags](const std::string&) { flags.quiet = true; }});
  spec.options.push_back({{"--verbose", "-v"}, "", "stages and every HTTP request, with timings, on stderr",
                          [&flags](const std::string&) { flags.verbose = true; }});
  // clang-format on
}

}  // namespace ma::cli
