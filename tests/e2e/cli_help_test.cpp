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

}  // namespace
}  // namespace ma::test
