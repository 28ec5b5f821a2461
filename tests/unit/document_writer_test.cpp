// The two forms of a written report (report/document_writer.h): what a section writes once must read right
// as Markdown and as HTML — lists, paragraphs, figures, escaping.
#include <gtest/gtest.h>

#include "report/html_writer.h"
#include "report/markdown_writer.h"

namespace ma {
namespace {

TEST(HtmlWriter, DashLinesBecomeAListBetweenParagraphs) {
  HtmlWriter w;
  w.paragraph("Before:\n- one `a<b`\n- **two**\nafter\n\nnext");
  EXPECT_EQ(w.take(),
            "<p>Before:</p>\n<ul>\n<li>one <code>a&lt;b</code></li>\n<li><strong>two</strong></li>\n</ul>\n"
            "<p>after</p>\n<p>next</p>\n");
}

TEST(HtmlWriter, ProseLinesStayOneParagraph) {
  HtmlWriter w;
  w.paragraph("line one\nline two - not an item");
  EXPECT_EQ(w.take(), "<p>line one<br>line two - not an item</p>\n");
}

TEST(HtmlWriter, FiguresStayOnOneLineWordsMayWrap) {
  HtmlWriter w;
  w.table({"name", "time", "delta"}, {{"layers.0.mlp", "70.53 ns", "-0.5"}});
  const std::string html = w.take();
  EXPECT_NE(html.find("<td>layers.0.mlp</td><td class=\"num\">70.53 ns</td><td class=\"num\">-0.5</td>"),
            std::string::npos)
      << html;
}

TEST(HtmlWriter, FigureInlinesTheSvgAndEscapesTheCaption) {
  HtmlWriter w;
  w.figure("<?xml version=\"1.0\"?>\n<svg></svg>", "roof.png", "min(P, BW x AI) & <more>");
  EXPECT_EQ(w.take(),
            "<figure><svg></svg><figcaption>min(P, BW x AI) &amp; &lt;more&gt;</figcaption></figure>\n");
  HtmlWriter none;
  none.figure("", "roof.png", "caption");
  EXPECT_EQ(none.take(), "") << "no picture, no empty frame";
}

TEST(MarkdownWriter, FigureLinksTheFileOrWritesNothing) {
  MarkdownWriter w;
  w.figure("<svg></svg>", "roof.png", "Roofline");
  EXPECT_EQ(w.take(), "![Roofline](<roof.png>)\n\nFigure: `roof.png` (Roofline).\n\n");
  MarkdownWriter none;
  none.figure("<svg></svg>", "", "Roofline");
  EXPECT_EQ(none.take(), "");
  MarkdownWriter stdout_figure;  // --plot -: the picture went to stdout, there is no file to link
  stdout_figure.figure("<svg></svg>", "-", "Roofline");
  EXPECT_EQ(stdout_figure.take(), "");
}

// CommonMark: a destination with a space or a parenthesis is one link only inside <...>; a backtick in the
// name needs a longer fence for the code span that names it; ] would end the alt text.
TEST(MarkdownWriter, FigureNamesWithSpacesParenthesesAndBackticksStayOneLink) {
  MarkdownWriter w;
  w.figure("", "img/roof (v2).png", "Roofline");
  EXPECT_EQ(w.take(), "![Roofline](<img/roof (v2).png>)\n\nFigure: `img/roof (v2).png` (Roofline).\n\n");
  MarkdownWriter odd;
  odd.figure("", "a`b<c>.png", "x [y]");
  EXPECT_EQ(odd.take(), "![x \\[y\\]](<a`b\\<c\\>.png>)\n\nFigure: ``a`b<c>.png`` (x [y]).\n\n");
}

// The link is relative to the folder the document is written to, not to the working directory.
TEST(MarkdownWriter, FigurePathIsRelativeToTheDocument) {
  EXPECT_EQ(markdown_figure_path("linkt/img/roof.png", "linkt/md/p.md"), "../img/roof.png");
  EXPECT_EQ(markdown_figure_path("img/roof (v2).png", "md/p2.md"), "../img/roof (v2).png");
  EXPECT_EQ(markdown_figure_path("roof.png", "p.md"), "roof.png");
  EXPECT_EQ(markdown_figure_path("out/roof.svg", "out/report.md"), "roof.svg");
  EXPECT_EQ(markdown_figure_path("/tmp/x/roof.png", "/tmp/x/y/z/r.md"), "../../roof.png");
  EXPECT_EQ(markdown_figure_path("roof.png", "-"), "roof.png");  // the document on stdout: as given
  EXPECT_EQ(markdown_figure_path("-", "p.md"), "");              // the figure on stdout: no link
}

TEST(MarkdownWriter, FiguresSectionLinksEachFileWrittenInTheRun) {
  EXPECT_EQ(markdown_figures({}, "r.md"), "");
  EXPECT_EQ(markdown_figures({{"-", "Diagram"}}, "r.md"), "");
  EXPECT_EQ(
      markdown_figures({{"plots/a b.png", "Histograms"}, {"plots/t.svg", "Trends"}}, "docs/r.md"),
      "\n## Figures\n\n![Histograms](<../plots/a b.png>)\n\nFigure: `../plots/a b.png` (Histograms).\n\n"
      "![Trends](<../plots/t.svg>)\n\nFigure: `../plots/t.svg` (Trends).\n\n");
}

// Data (a token, a name) written through markdown_literal shows as it is: two tokens holding a backtick do
// not pair up into a code span across the cell, "**" is not bold.
TEST(MarkdownWriter, LiteralDataKeepsItsBackticksAndStars) {
  EXPECT_EQ(markdown_literal("x`y"), "x\\`y");
  EXPECT_EQ(markdown_literal("**a_b**"), "\\*\\*a\\_b\\*\\*");
  EXPECT_EQ(markdown_literal("a\\b [c] ~"), "a\\\\b \\[c\\] \\~");
  // In a table cell the escaped backticks open no code span, so the markup after them is still escaped.
  EXPECT_EQ(markdown_cell("\"" + markdown_literal("x`y") + "\", <b>, \"" + markdown_literal("x`y") + "\""),
            "\"x\\`y\", &lt;b>, \"x\\`y\"");
}

// What a viewer would read as HTML is escaped outside real code spans only: a span shows its text as it is,
// but a lone or backslash-escaped backtick opens none, so the markup after it is escaped too.
TEST(MarkdownWriter, MarkupIsEscapedOutsideRealCodeSpansOnly) {
  auto paragraph = [](std::string_view text) {
    MarkdownWriter w;
    w.paragraph(text);
    return w.take();
  };
  EXPECT_EQ(paragraph("<img src=x> & eta < 1"), "&lt;img src=x> & eta < 1\n\n");
  EXPECT_EQ(paragraph("`<img>` <b>"), "`<img>` &lt;b>\n\n");
  EXPECT_EQ(paragraph("x`<img onerror=x>"), "x`&lt;img onerror=x>\n\n");
  EXPECT_EQ(paragraph("\\`<img>`"), "\\`&lt;img>`\n\n");
  EXPECT_EQ(paragraph("``a`<b>``"), "``a`<b>``\n\n");  // a run of two closes only at a run of two
  EXPECT_EQ(markdown_cell("a|`b|c`&amp"), "a\\|`b\\|c`&amp;amp");
}

}  // namespace
}  // namespace ma
