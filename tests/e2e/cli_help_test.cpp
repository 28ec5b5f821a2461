// End-to-end: every command's --help is generated from its option table, and the binary prints it.
#include <gtest/gtest.h>

#include "cli/commands.h"
#include "cli_test_support.h"

namespace ma::test {
namespace {

TEST(CliArgs, EveryCommandHasAHelpFromItsTable) {
  for (const char* name : {"", "tensors", "stats", "compare", "perf", "download", "build-config"}) {
    const cli::Command* c = cli::find_command(name);
    ASSERT_NE(c, nullptr) << name;
    const std::string help = c->help();
    EXPECT_EQ(help.rfind("usage: modelanalyzer ", 0), 0u) << help;
    EXPECT_NE(help.find("--quiet, -q"), std::string::npos) << name;
    EXPECT_NE(help.find("--verbose, -v"), std::string::npos) << name;
  }
  auto r = run_cli("perf --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--tp N"), std::string::npos) << r.out;
  auto top = run_cli("--help");
  EXPECT_EQ(top.exit_code, 0);
  for (const char* s :
       {"modelanalyzer tensors MODEL", "modelanalyzer perf MODEL", "modelanalyzer build-config MODEL",
        "report options:", "--kv-dtype DTYPE", "130 interrupted"})
    EXPECT_NE(top.out.find(s), std::string::npos) << s;
  EXPECT_EQ(top.out.find("seed 0"), std::string::npos)
      << "user-visible text names things, not seed documents";
}

// The libraries only some commands need are loaded when one of them runs (dlopen): ONNX's library and
// protobuf by the ONNX reader module, libcurl and libcrypto by the first Hub request, librsvg by a PNG
// diagram, LAPACK by spectrum and embeddings. No other command pays for loading them at start-up.
TEST(Program, StartsWithoutTheLibrariesOnlySomeCommandsNeed) {
  // What ldd prints, from the dynamic loader itself: every shared library the program loads at start.
  CommandResult r = run_cli_env("LD_TRACE_LOADED_OBJECTS=1", "");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE(r.out.find("libc.so"), std::string::npos) << r.out;
  for (const char* lib : {"libonnx", "libprotobuf", "libcurl", "libcrypto", "libssl", "librsvg", "liblapack"})
    EXPECT_EQ(r.out.find(lib), std::string::npos) << lib << " in\n" << r.out;
}

}  // namespace
}  // namespace ma::test
