// The option tables: every subcommand parses `--name value`, `--name=value`, flags and operands the same
// way and checks numbers before any cast (the --help each table generates: e2e/cli_help_test.cpp).
#include <gtest/gtest.h>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/compare_args.h"
#include "cli/perf_args.h"
#include "cli/report_args.h"
#include "cli/stats_args.h"
#include "cli/tensors_args.h"
#include "core/error.h"
#include "core/text.h"

namespace ma::test {
namespace {

// The usage error a parse raises, or "" when it parses.
template <typename F>
std::string usage_error(F&& parse) {
  try {
    parse();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
    return e.what();
  }
  return "";
}

TEST(CliArgs, EqualsFormAndSeparateValueAreTheSame) {
  const cli::StatsArgs a =
      cli::parse_stats_args({"m", "--bins=32", "--eps", "0.5", "--include=*q*", "--include", "*k*"});
  EXPECT_EQ(a.model, "m");
  EXPECT_EQ(a.scan.bins, 32u);
  EXPECT_DOUBLE_EQ(a.scan.eps, 0.5);
  EXPECT_EQ(a.selection.include, (std::vector<std::string>{"*q*", "*k*"}));
}

TEST(CliArgs, DoubleDashEndsOptions) {
  const cli::TensorsArgs a = cli::parse_tensors_args({"--json", "--", "--strange-dir"});
  EXPECT_TRUE(a.json);
  EXPECT_EQ(a.model, "--strange-dir");
}

TEST(CliArgs, UnknownOptionsMissingValuesAndExtraOperandsAreNamed) {
  EXPECT_NE(usage_error([] {
              cli::parse_tensors_args({"m", "--jsn"});
            })
                .find("--jsn: unknown option for 'modelanalyzer tensors ...' (did you mean --json?); see "
                      "modelanalyzer tensors --help"),
            std::string::npos);
  // Nothing near enough: no suggestion.
  EXPECT_EQ(usage_error([] {
              cli::parse_tensors_args({"m", "--frobnicate"});
            }).find("did you mean"),
            std::string::npos);
  EXPECT_NE(usage_error([] {
              cli::parse_tensors_args({"m", "--csv"});
            }).find("--csv: needs a value (FILE)"),
            std::string::npos);
  EXPECT_NE(usage_error([] {
              cli::parse_tensors_args({"m", "n"});
            }).find("takes one MODEL"),
            std::string::npos);
  EXPECT_NE(usage_error([] {
              cli::parse_tensors_args({"m", "--json=yes"});
            }).find("--json: takes no value"),
            std::string::npos);
  EXPECT_NE(usage_error([] { cli::parse_compare_args({"a"}); }).find("two local checkpoints"),
            std::string::npos);
}

TEST(CliArgs, NumbersAreRangeCheckedBeforeAnyCast) {
  // Each of these once became a wrapped or truncated value.
  for (const char* tp : {"4294967297", "0", "-1", "1e3", "2.5", " 2", "2 ", "", "99999999999999999999999"})
    EXPECT_NE(usage_error([&] {
                cli::parse_perf_args({"m", "--tp", tp});
              }).find("--tp: expects an integer from 1 to 65,536"),
              std::string::npos)
        << tp;
  for (const char* top : {"1e30", "nan", "-3", "inf"})
    EXPECT_NE(usage_error([&] {
                cli::parse_compare_args({"a", "b", "--top", top});
              }).find("--top: expects an integer"),
              std::string::npos)
        << top;
  for (const char* eps : {"nan", "inf", "-1", "1e400", "0x", ""})
    EXPECT_NE(usage_error([&] {
                cli::parse_stats_args({"m", "--eps", eps});
              }).find("--eps: expects a number"),
              std::string::npos)
        << eps;
  EXPECT_EQ(cli::parse_perf_args({"m", "--tp", "65536"}).inputs.parallel.tp, 65536u);
  EXPECT_EQ(cli::parse_report_args({"m", "--context", "1073741824"}).options.context, uint64_t{1} << 30);
  EXPECT_NE(usage_error([] { cli::parse_report_args({"m", "--context", "1073741825"}); }), "");
}

TEST(CliArgs, ChoicesAndDtypesListWhatIsAccepted) {
  EXPECT_NE(usage_error([] {
              cli::parse_perf_args({"m", "--mode", "serve"});
            }).find("--mode: must be one of prefill, decode, train; got 'serve'"),
            std::string::npos);
  EXPECT_EQ(usage_error([] {
              cli::parse_perf_args({"m", "--mode", "serve"});
            }).find("did you mean"),
            std::string::npos);  // no choice near it
  EXPECT_NE(usage_error([] {
              cli::parse_perf_args({"m", "--mode", "prefil"});
            }).find("got 'prefil' (did you mean prefill?)"),
            std::string::npos);
  EXPECT_NE(usage_error([] {
              cli::parse_report_args({"m", "--kv-dtype", "fp7"});
            }).find("accepted: fp32, bf16"),
            std::string::npos);
}

TEST(CliArgs, KnobsOverrideTheProfileWhateverTheirOrder) {
  const cli::PerfArgs a = cli::parse_perf_args({"m", "--wrf", "3", "--profile", "naive"});
  EXPECT_DOUBLE_EQ(a.inputs.knobs.wrf_dense, 3);
  EXPECT_EQ(a.inputs.knobs.profile, "naive (modified)");
}

TEST(TerminalSafe, KeepsUtf8EscapesTheRest) {
  EXPECT_EQ(terminal_safe("plain /path/to model"), "plain /path/to model");
  EXPECT_EQ(terminal_safe("模型/config.json"), "模型/config.json");
  EXPECT_EQ(terminal_safe("a\nb\tc\x1b[2J"), "a\\x0ab\\x09c\\x1b[2J");
  EXPECT_EQ(terminal_safe("bad\xff\xfe"), "bad\\xff\\xfe");
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "31m"),
            "\\xc2\\x9b31m");                                        // C1 CSI
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xc0\\xaf");                // overlong '/'
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");       // a surrogate
  EXPECT_EQ(terminal_safe("\xe6\xa8"), "\\xe6\\xa8");                // cut short
  EXPECT_EQ(terminal_safe("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");  // an emoji
}

}  // namespace
}  // namespace ma::test
