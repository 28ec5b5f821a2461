// The embeddings Markdown export shows tokens as they are: a token holding a backtick or an asterisk is data,
// so two such tokens in one cell must not pair up into a code span (or bold) that garbles the rest of it.
#include <gtest/gtest.h>

#include <string>

#include "report/embeddings_report.h"
#include "report/run_info.h"

namespace ma {
namespace {

// One cluster whose tokens nearest the centre each hold a backtick (and one a pair of asterisks).
EmbeddingAnalysis analysis_with_markup_tokens() {
  EmbeddingAnalysis a;
  a.model_id = "example/tokens";
  a.tensor = "model.embed_tokens.weight";
  a.rows = 3;
  a.cols = 2;
  a.k = 1;
  ClusterSummary c;
  c.size = 3;
  c.examples = {{0, "x`y", 0.1}, {1, "<b>", 0.2}, {2, "a`**b**", 0.3}};
  a.clusters.push_back(c);
  return a;
}

// The backticks of a line that are not backslash-escaped: each would open or close a code span.
size_t bare_backticks(const std::string& line) {
  size_t n = 0;
  for (size_t i = 0; i < line.size(); ++i)
    if (line[i] == '`' && (i == 0 || line[i - 1] != '\\')) ++n;
  return n;
}

TEST(EmbeddingsMarkdown, TokensWithBackticksStayTextInTheirCell) {
  const EmbeddingAnalysis a = analysis_with_markup_tokens();
  const std::string md = render_embeddings_markdown(a, RunInfo{});
  const size_t row = md.find("\n| 0 |");
  ASSERT_NE(row, std::string::npos) << md;
  const std::string line = md.substr(row + 1, md.find('\n', row + 1) - row - 1);
  EXPECT_EQ(bare_backticks(line), 0u) << line;
  EXPECT_NE(line.find("\"x\\`y\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"a\\`\\*\\*b\\*\\*\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"&lt;b>\""), std::string::npos)
      << "markup after the tokens is still escaped: " << line;
  // The console shows the tokens as they are.
  EXPECT_NE(render_embeddings_console(a, false).find("\"x`y\""), std::string::npos);
}

}  // namespace
}  // namespace ma
