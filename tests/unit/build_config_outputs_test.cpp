// `build-config`'s command line and files: --expect-params in the claims file's spellings, --tolerance's
// help, and a refused --out that leaves no gaps directory behind (run in-process on a hand-written config,
// so no shared data is needed).
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/build_config_args.h"
#include "cli/commands.h"
#include "cli/option_table.h"
#include "core/error.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace ma::test::build_config_outputs {
namespace {

// --expect-params as parsed, or the usage error's text.
std::string expected_parameters_of(const std::string& value, double& parsed) {
  try {
    parsed = *cli::parse_build_config_args({"m", "--out", "c.json", "--gaps", "g", "--expect-params", value})
                  .expect.parameters;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
    return e.what();
  }
  return "";
}

// The claims file writes "70B"; the option took only "70e9" and refused "70B" as "expects a number".
TEST(BuildConfigOutputs, ExpectParamsTakesTheClaimsFilesSpellings) {
  struct Case {
    const char* text;
    double value;
  };
  for (const Case& k : {Case{"70B", 70e9}, Case{"1.5B", 1.5e9}, Case{"70e9", 70e9}, Case{"70000000000", 70e9},
                        Case{"70.55 billion", 70.55e9}, Case{"70,553,706,496", 70553706496.0}}) {
    double parsed = 0;
    EXPECT_EQ(expected_parameters_of(k.text, parsed), "") << k.text;
    EXPECT_DOUBLE_EQ(parsed, k.value) << k.text;
  }
  for (const char* bad : {"70 bn", "0B", "-5", "1,5B", "2e15", "seventy"}) {
    double parsed = 0;
    const std::string error = expected_parameters_of(bad, parsed);
    EXPECT_NE(error.find("--expect-params"), std::string::npos) << bad << ": " << error;
    EXPECT_NE(error.find("70B"), std::string::npos) << bad << ": " << error;  // the spellings it takes
  }
}

// The help says what the check does: within P% of the published number, however the claim is rounded.
TEST(BuildConfigOutputs, ToleranceHelpSaysTheNominalValueDecides) {
  cli::BuildConfigArgs a;
  const std::string help = cli::command_help(cli::build_config_spec(a));
  EXPECT_NE(help.find("nominal value"), std::string::npos) << help;
  EXPECT_EQ(help.find("beyond their rounding"), std::string::npos) << help;
}

// A refused --out (a missing directory, a directory) fails before the gaps directory exists, and leaves none
// behind; an --out inside the gaps directory still gets its directory. The model: a Llama config with an
// untied head, so there is a gap report to write.
TEST(BuildConfigOutputs, ARefusedOutLeavesNoGapsDirectory) {
  TempDir dir;
  fs::create_directories(dir / "model");
  write_file(dir / "model" / "config.json", tiny_llama_config("2"));
  const std::string model = (dir / "model").string();
  fs::create_directories(dir / "a-directory");
  for (const fs::path& out : {dir / "missing" / "c.json", dir / "a-directory"}) {
    const fs::path gaps = dir / "gaps";
    EXPECT_THROW(cli::run_build_config({model, "--out", out.string(), "--gaps", gaps.string(), "-q"}), Error)
        << out;
    EXPECT_FALSE(fs::exists(gaps)) << out;
    EXPECT_FALSE(fs::exists(dir / "missing")) << out;
  }
  const fs::path inside = dir / "new" / "gaps";
  EXPECT_EQ(
      cli::run_build_config({model, "--out", (inside / "c.json").string(), "--gaps", inside.string(), "-q"}),
      0);
  EXPECT_TRUE(fs::exists(inside / "c.json"));
  EXPECT_TRUE(fs::exists(inside / "model.lm_head.md"));
}

}  // namespace
}  // namespace ma::test::build_config_outputs
