#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/stdout_status.h"
#include "core/error.h"
#include "core/heap_pages.h"
#include "core/text.h"
#include "formats/model_files.h"

namespace {

int run(const ma::cli::Args& args) {
  using namespace ma::cli;
  if (args.empty()) {
    std::fputs(usage_text().c_str(), stderr);
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(usage_text().c_str(), stdout);
    return 0;
  }
  if (args[0] == "--version") {
    std::puts("modelanalyzer " MA_VERSION);
    return 0;
  }
  const Command* command = find_command(args[0]);
  const Args rest = command ? Args(args.begin() + 1, args.end()) : args;
  if (!command) {
    command = find_command("");  // the report: `modelanalyzer MODEL...`
    // `modelanalyzer tensor MODEL` reads "tensor" as a model (a Hub repo may be named so): the error that
    // follows would not say why. Unless a file of that name is there, say which command it looks like.
    const std::optional<std::string_view> meant = command_like(args[0]);
    const bool quiet = std::find(args.begin(), args.end(), "--quiet") != args.end() ||
                       std::find(args.begin(), args.end(), "-q") != args.end();
    if (meant && !quiet && !ma::path_is_present(args[0]))
      std::fprintf(stderr,
                   "modelanalyzer: note: '%s' is no command and is read as a model (did you mean "
                   "'modelanalyzer %s'?)\n",
                   ma::terminal_safe(args[0]).c_str(), std::string(*meant).c_str());
  }
  for (const std::string& a : rest)
    if (a == "--help" || a == "-h") {
      std::fputs(command->help().c_str(), stdout);
      return 0;
    }
  return command->run(rest);
}

}  // namespace

int main(int argc, char** argv) {
  ma::prefer_huge_heap_pages();
  const ma::cli::Args args(argv + 1, argv + argc);
  ma::cli::remember_command_line(args);
  ma::cli::exit_on_interrupt();
  int code;
  try {
    code = run(args);
  } catch (const ma::Error& e) {
    std::fprintf(stderr, "modelanalyzer: error: %s\n", ma::terminal_safe(e.message()).c_str());
    code = e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "modelanalyzer: error: out of memory\n");
    code = static_cast<int>(ma::ErrorKind::Limit);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "modelanalyzer: internal error: %s\n", ma::terminal_safe(e.what()).c_str());
    code = 1;
  }
  return ma::cli::finish_stdout(code);
}
