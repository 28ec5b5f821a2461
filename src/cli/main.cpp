#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"

namespace ma::cli {

std::string usage_text() {
  return "modelanalyzer " MA_VERSION
         " - exact architecture, parameters and tensors of transformer models\n"
         "\n"
         "usage:\n"
         "  modelanalyzer MODEL [--json] [--quiet]\n"
         "      architecture summary: family, exact parameter counts, layer map, checkpoint totals\n"
         "  modelanalyzer tensors MODEL [--json] [--csv FILE] [--quiet]\n"
         "      every tensor: name, shape, dtype, parameters, bytes, layer, block, role, kind\n"
         "\n"
         "MODEL: a model directory (config.json and/or *.safetensors, sharded or not), a .safetensors file,\n"
         "       or a config.json (dry run: the tensors the architecture implies, without weights)\n"
         "\n"
         "exit codes: 0 ok, 1 internal error, 2 usage, 3 malformed file, 4 unsafe content, 5 resource "
         "limit,\n"
         "            8 not found, 9 local I/O, 10 unsupported architecture\n";
}

}  // namespace ma::cli

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::fputs(ma::cli::usage_text().c_str(), args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::puts("modelanalyzer " MA_VERSION);
      return 0;
    }
    if (args[0] == "tensors") return ma::cli::run_tensors({args.begin() + 1, args.end()});
    return ma::cli::run_summary(args);
  } catch (const ma::Error& e) {
    std::fprintf(stderr, "modelanalyzer: error: %s\n", e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "modelanalyzer: error: out of memory\n");
    return static_cast<int>(ma::ErrorKind::Limit);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "modelanalyzer: internal error: %s\n", e.what());
    return 1;
  }
}
