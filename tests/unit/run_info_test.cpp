// The command line every export records: runnable again in a shell, and never the Hub token.
#include "report/run_info.h"

#include <gtest/gtest.h>

namespace ma {
namespace {

TEST(RunInfo, CommandLineIsShellQuoted) {
  EXPECT_EQ(command_line_text({"stats", "org/model", "--bins", "8"}),
            "modelanalyzer stats org/model --bins 8");
  EXPECT_EQ(command_line_text({"/tmp/my model", "--context", ""}),
            "modelanalyzer '/tmp/my model' --context ''");
  EXPECT_EQ(command_line_text({"it's"}), "modelanalyzer 'it'\\''s'");
  EXPECT_EQ(command_line_text({"a;rm -rf x", "$HOME"}), "modelanalyzer 'a;rm -rf x' '$HOME'");
}

TEST(RunInfo, TokenValueIsRedacted) {
  EXPECT_EQ(command_line_text({"org/m", "--token", "hf_secret", "--json"}),
            "modelanalyzer org/m --token *** --json");
  EXPECT_EQ(command_line_text({"org/m", "--token=hf_secret"}), "modelanalyzer org/m --token=***");
  // The token file's path is not a secret; only the value of --token is.
  EXPECT_EQ(command_line_text({"org/m", "--token-file", "/run/tok"}),
            "modelanalyzer org/m --token-file /run/tok");
}

}  // namespace
}  // namespace ma
