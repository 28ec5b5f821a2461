// End-to-end: a Markdown export links the figures written in the same run, relative to the document's own
// folder (a link relative to where the command ran broke once the page was opened), as a CommonMark
// destination in <...> so that spaces and parentheses in a file name keep the link whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

TEST(MarkdownFiguresCli, FiguresAreLinkedFromTheDocumentsFolder) {
  TempDir dir;
  fs::create_directories(dir / "md");
  fs::create_directories(dir / "img");
  const CommandResult perf =
      run_cli("perf " + example() + " --quiet --report " + quoted(dir / "md" / "p.md") + " --plot " +
              quoted(dir / "img" / "roof (v2).png"));
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  EXPECT_NE(read_file(dir / "md" / "p.md").find("](<../img/roof (v2).png>)"), std::string::npos)
      << read_file(dir / "md" / "p.md");

  const CommandResult stats =
      run_cli("stats " + example() + " --quiet --markdown " + quoted(dir / "md" / "s.md") + " --plot " +
              quoted(dir / "img" / "h.svg"));
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const std::string s = read_file(dir / "md" / "s.md");
  EXPECT_NE(s.find("## Figures"), std::string::npos) << s;
  EXPECT_NE(s.find("](<../img/h.svg>)"), std::string::npos) << s;

  // A figure on standard output has no file to link.
  const CommandResult to_stdout =
      run_cli("stats " + example() + " --quiet --markdown " + quoted(dir / "md" / "t.md") + " --plot -");
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.err;
  EXPECT_EQ(read_file(dir / "md" / "t.md").find("## Figures"), std::string::npos);
}

}  // namespace
}  // namespace ma::test
