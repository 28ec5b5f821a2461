// End-to-end: `--html FILE.html`, the report as one self-contained page. The structure is checked here
// always; the page's behaviour in a real browser (Debian's headless Chromium: two widths, its scripts run,
// no console error) when Chromium is installed, else that test skips saying so.
#include <gtest/gtest.h>

#include <regex>

#include "cli_test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kChromium = "/usr/bin/chromium";

std::string html_of(const TempDir& dir, const std::string& model) {
  const fs::path out = dir / "report.html";
  CommandResult r = run_cli(model + " --quiet --html " + quoted(out));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return read_file(out);
}

TEST(CliHtmlReport, OnePageWithEverySectionAndNothingFetched) {
  TempDir dir;
  const std::string html = html_of(dir, example());
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  for (const char* section : {"<h1>Model analysis: tiny-llama</h1>", "<h2>Basic information</h2>",
                              "<h2>Architecture diagram</h2>", "<h2>Parameters</h2>", "<h2>Architecture</h2>",
                              "<h2>Attention</h2>", "<h2>Memory</h2>", "<h2>Capabilities</h2>"})
    EXPECT_NE(html.find(section), std::string::npos) << section;
  EXPECT_NE(html.find("<figure><svg"), std::string::npos) << "the diagram is inline";
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"sortable\">"), std::string::npos);
  EXPECT_NE(html.find("prefers-color-scheme: dark"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
  // Self-contained: no external script, style, font or image; the only URL is the SVG namespace.
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=)"))) << "a resource is referenced";
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  // The same figures as the Markdown export: the parameter count, the run line.
  EXPECT_NE(html.find("151,872"), std::string::npos);
  EXPECT_NE(html.find("<strong>Analysis Date:</strong>"), std::string::npos);
}

// `stats --html`: the statistics report with its two figures inline, as one page with nothing fetched.
TEST(CliHtmlReport, StatsPageCarriesTheTableAndBothFigures) {
  TempDir dir;
  const fs::path out = dir / "stats.html";
  CommandResult r = run_cli("stats " + example() + " --quiet --html " + quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read_file(out);
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  for (const char* part : {"<h2>Summary</h2>", "<h2>Figures</h2>", "<h2>Weight statistics</h2>",
                           "model.layers.0.self_attn.q_proj.weight", "<strong>Analysis Date:</strong>"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
  size_t figures = 0;
  for (size_t at = html.find("<figure><svg"); at != std::string::npos; at = html.find("<figure><svg", at + 1))
    ++figures;
  EXPECT_EQ(figures, 2u) << "the histograms and the layer trends";
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=)")));
}

// `perf --html`: the efficiency study of seed 001, every section, with its roofline inline.
TEST(CliHtmlReport, PerfPageCarriesTheStudyAndTheRoofline) {
  TempDir dir;
  const fs::path out = dir / "perf.html";
  CommandResult r = run_cli("perf " + example() + " --quiet --html " + quoted(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "") << "--quiet, and the page went to its file";
  const std::string html = read_file(out);
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  for (const char* part :
       {"<h1>Performance analysis: ", "<h2>1. Architecture Overview", "<h2>3. Roofline Analysis",
        "<h2>4. Sensitivity", "<h2>5. ", "<h2>Appendix B", "<strong>Analysis Date:</strong>", "<ul>\n<li>"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
  size_t figures = 0;
  for (size_t at = html.find("<figure><svg"); at != std::string::npos; at = html.find("<figure><svg", at + 1))
    ++figures;
  EXPECT_EQ(figures, 1u) << "the roofline, inline";
  EXPECT_EQ(html.find("!["), std::string::npos) << "no Markdown image link in HTML";
  EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=)")));
  // The Markdown study of the same run has the same sections, and names no figure it did not write.
  CommandResult md = run_cli("perf " + example() + " --quiet --report -");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("## 3. Roofline Analysis"), std::string::npos);
  EXPECT_EQ(md.out.find("!["), std::string::npos);
  EXPECT_NE(md.out.find("**Analysis Date:**"), std::string::npos);
}

// stdout carries one document: two outputs that both ask for it are refused before any work.
TEST(CliHtmlReport, PerfRefusesTwoDocumentsOnStdout) {
  CommandResult r = run_cli("perf " + example() + " --html - --report -");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--report - and --html -: each writes to standard output"), std::string::npos)
      << r.err;
}

// Text from the model is escaped, never markup: a config whose architecture name holds a tag.
TEST(CliHtmlReport, ModelTextIsEscaped) {
  TempDir dir;
  fs::create_directories(dir / "m");
  write_file(dir / "m" / "config.json", R"({"model_type": "llama", "architectures": ["<img onerror=x>"],
    "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1, "num_attention_heads": 4,
    "vocab_size": 100})");
  const std::string html = html_of(dir, quoted(dir / "m"));
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("&lt;img onerror=x&gt;"), std::string::npos);
}

// In Chromium: each page (the report, `stats`, `perf`) renders at a laptop and a phone width, its script
// runs (it makes every sortable header focusable) and nothing is logged to the console.
TEST(CliHtmlReport, RendersInHeadlessChromium) {
  if (!fs::exists(kChromium))
    GTEST_SKIP() << kChromium << " is not installed (scripts/install-deps.sh installs it)";
  TempDir dir;
  const std::string chrome = std::string(kChromium) +
                             " --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run"
                             " --user-data-dir=" +
                             quoted(dir / "profile");
  for (const char* page : {"report", "stats", "perf"}) {
    SCOPED_TRACE(page);
    const fs::path html = dir / (std::string(page) + ".html");
    const std::string command = std::string(page) == "report" ? "" : std::string(page) + " ";
    CommandResult made = run_cli(command + example() + " --quiet --html " + quoted(html));
    ASSERT_EQ(made.exit_code, 0) << made.err;
    const std::string url = "file://" + html.string();
    for (int width : {1280, 420}) {
      const fs::path shot = dir / (std::string(page) + "-" + std::to_string(width) + ".png");
      CommandResult r = run_shell("timeout 120 " + chrome + " --window-size=" + std::to_string(width) +
                                  ",2000 --screenshot=" + quoted(shot) + " '" + url + "'");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const std::string png = read_file(shot);
      EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
      EXPECT_GT(png.size(), 20000u) << "a blank page compresses far smaller";
    }
    CommandResult dom =
        run_shell("timeout 120 " + chrome + " --enable-logging=stderr --v=0 --dump-dom '" + url + "'");
    ASSERT_EQ(dom.exit_code, 0) << dom.err;
    EXPECT_NE(dom.out.find("<th scope=\"col\" tabindex=\"0\">"), std::string::npos)
        << "the script did not run";
    EXPECT_EQ(dom.err.find("CONSOLE"), std::string::npos) << dom.err;
    EXPECT_EQ(dom.err.find("Uncaught"), std::string::npos) << dom.err;
  }
}

}  // namespace
}  // namespace ma::test
