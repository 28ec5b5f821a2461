// An option that takes one value, given twice, is a usage error in every command (the option table is
// shared): `--export a.json --export b.json` wrote b.json only and said nothing. Options whose help says
// "repeatable" collect every value, and a flag given twice is the same flag.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/download_args.h"
#include "cli/option_table.h"
#include "cli/perf_args.h"
#include "cli/report_args.h"
#include "cli/spectrum_args.h"
#include "cli/stats_args.h"
#include "cli/tensors_args.h"
#include "core/error.h"

namespace ma::test {
namespace {

// The message of the usage error a parse raises, or "" when it parses.
template <typename F>
std::string repeat_usage_error(F&& parse) {
  try {
    parse();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
    EXPECT_EQ(e.exit_code(), 2);
    return e.what();
  }
  return "";
}

TEST(OptionRepeat, ASecondExportIsRefusedNotAFileLost) {
  const std::string e = repeat_usage_error([] {
    cli::parse_report_args({"m", "-q", "--export", "rep/first.json", "--export", "rep/second.json"});
  });
  EXPECT_NE(e.find("--export: given twice"), std::string::npos) << e;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"m", "--html", "a.html", "--html=b.html"},
        std::vector<std::string>{"m", "--viz-output", "a.svg", "--viz-output", "b.svg"},
        std::vector<std::string>{"m", "--batch", "2", "--batch", "4"},
        std::vector<std::string>{"m", "--revision", "main", "--revision", "v2"}}) {
    const std::string flag = args[1];
    EXPECT_NE(repeat_usage_error([&] { cli::parse_report_args(args); }).find(flag + ": given twice"),
              std::string::npos)
        << flag;
  }
}

// One option under two names is one option: the second name is the one named, and the first spelling said.
TEST(OptionRepeat, AnAliasCountsAsTheSameOption) {
  const std::string e = repeat_usage_error([] {
    cli::parse_report_args({"m", "--markdown", "a.md", "--export-markdown", "b.md"});
  });
  EXPECT_NE(e.find("--export-markdown: given twice (first as --markdown)"), std::string::npos) << e;
}

// The rule is the option table's, so every command has it.
TEST(OptionRepeat, EveryCommandRefusesASecondValue) {
  EXPECT_NE(repeat_usage_error([] {
              cli::parse_perf_args({"m", "--hw", "h200", "--hw", "b200"});
            }).find("--hw: given twice"),
            std::string::npos);
  // A perf knob given twice kept the last value silently.
  EXPECT_NE(repeat_usage_error([] {
              cli::parse_perf_args({"m", "--wrf", "2", "--wrf", "3"});
            }).find("--wrf: given twice"),
            std::string::npos);
  EXPECT_NE(repeat_usage_error([] {
              cli::parse_tensors_args({"m", "--csv", "a.csv", "--csv", "b.csv"});
            }).find("--csv: given twice"),
            std::string::npos);
  EXPECT_NE(repeat_usage_error([] {
              cli::parse_stats_args({"m", "--bins", "16", "--bins=32"});
            }).find("--bins: given twice"),
            std::string::npos);
}

// A token is never shown, not even in the message that refuses a second one.
TEST(OptionRepeat, TheMessageShowsNoValue) {
  const std::string e = repeat_usage_error([] {
    cli::parse_report_args({"m", "--token", "hf_firstsecret", "--token", "hf_secondsecret"});
  });
  EXPECT_NE(e.find("--token: given twice"), std::string::npos) << e;
  EXPECT_EQ(e.find("secret"), std::string::npos) << e;
}

// What --help calls repeatable collects every value, in order.
TEST(OptionRepeat, RepeatableOptionsCollectEveryValue) {
  const cli::StatsArgs s =
      cli::parse_stats_args({"m", "--include", "*q*", "--include=*k*", "--exclude", "a"});
  EXPECT_EQ(s.selection.include, (std::vector<std::string>{"*q*", "*k*"}));
  const cli::DownloadArgs d = cli::parse_download_args(
      {"org/m", "--include", "*.json", "--include", "*.safetensors", "--exclude", "a*", "--exclude", "b*"});
  EXPECT_EQ(d.options.include, (std::vector<std::string>{"*.json", "*.safetensors"}));
  EXPECT_EQ(d.options.exclude, (std::vector<std::string>{"a*", "b*"}));
  const cli::SpectrumArgs sp = cli::parse_spectrum_args({"m", "--show", "*q_proj*", "--show", "*k_proj*"});
  EXPECT_EQ(sp.show, (std::vector<std::string>{"*q_proj*", "*k_proj*"}));
}

// A flag given twice asks for the same thing twice: nothing is lost, and nothing is refused.
TEST(OptionRepeat, AFlagMayBeGivenTwice) {
  EXPECT_EQ(
      repeat_usage_error([] {
        const cli::ReportArgs a = cli::parse_report_args({"m", "-q", "--quiet", "--detailed", "--detailed"});
        EXPECT_TRUE(a.common.quiet);
        EXPECT_TRUE(a.detailed);
      }),
      "");
}

// The mechanism on a table of its own: "repeatable" in the help is what lets an option be given again.
TEST(OptionRepeat, TheHelpTextDecides) {
  std::string one;
  std::vector<std::string> many;
  bool flag = false;
  cli::CommandSpec spec;
  spec.name = "t";
  spec.operands = "X";
  spec.operand = [](const std::string&) {};
  spec.options = {
      {{"--one", "-o"}, "FILE", "one file", [&](const std::string& v) { one = v; }},
      {{"--many"}, "GLOB", "a pattern (repeatable)", [&](const std::string& v) { many.push_back(v); }},
      {{"--flag"}, "", "a flag", [&](const std::string&) { flag = true; }},
  };
  cli::parse_command_line({"--many", "a", "--one", "x", "--many=b", "--flag", "--flag"}, spec);
  EXPECT_EQ(one, "x");
  EXPECT_EQ(many, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(flag);
  const std::string e = repeat_usage_error([&] { cli::parse_command_line({"--one", "x", "-o", "y"}, spec); });
  EXPECT_NE(e.find("-o: given twice (first as --one)"), std::string::npos) << e;
  // After "--" everything is an operand: a word spelled like the option is no second value.
  EXPECT_EQ(repeat_usage_error([&] { cli::parse_command_line({"--one", "x", "--", "--one"}, spec); }), "");
}

}  // namespace
}  // namespace ma::test
