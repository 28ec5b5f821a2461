// End-to-end: every command's --help is generated from its option table, and the binary prints it.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli_test_support.h"
#include "test_support.h"

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

// A mistyped command is read as a model (a Hub repository may be named "tensor"), and the note says which
// command it looks like; a file of that name is a model, and no note is printed.
TEST(Program, AMistypedCommandIsNamed) {
  TempDir cache;
  const std::string offline = isolated_hub_env("http://127.0.0.1:9", cache.path()) + " HF_HUB_OFFLINE=1";
  CommandResult r = run_cli_env(offline, "tensor " + example() + " --json");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("modelanalyzer: note: 'tensor' is no command and is read as a model (did you mean "
                       "'modelanalyzer tensors'?)"),
            std::string::npos)
      << r.err;
  CommandResult quiet = run_cli_env(offline, "stat " + example() + " --quiet");
  EXPECT_EQ(quiet.err.find("note:"), std::string::npos) << quiet.err;
  // Far from every command: no note.
  CommandResult far = run_cli_env(offline, "frobnicate " + example());
  EXPECT_EQ(far.err.find("is no command"), std::string::npos) << far.err;
  // A model directory of that name in the working directory: read as the model it is, without a note.
  const std::filesystem::path stat = cache.path() / "stat";
  std::filesystem::create_directory_symlink(example_dir(), stat);
  CommandResult local = run_cli_in(cache.path(), "stat " + example() + " --json");
  EXPECT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(local.err.find("is no command"), std::string::npos) << local.err;
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
