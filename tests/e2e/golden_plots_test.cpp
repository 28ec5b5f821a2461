// Golden SVGs, one per kind of picture the binary draws: the stats histogram grid (--plot) and per-layer
// trends (--trends) and the compare drift plot (--plot) of the fixed checkpoints (golden_support.h), the
// perf roofline of the built-in example (--plot of a decode step on h200, drawn as seed 001's two panels,
// H200 and B200 at FP8), and the report's architecture diagram of the example in both styles (--visualize
// --viz-style simple|detailed --viz-output x.svg). The binary runs in the inputs' directory on relative
// names: the titles, and so the layout, do not depend on where the build is; nothing needs normalising.
// Regenerate with UPDATE_GOLDEN=1; GOLDEN_PNG_DIR=DIR also draws each picture as DIR/<name>.png with the
// binary's PNG path, to look at before committing.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli_test_support.h"
#include "golden_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

// Runs `command` in `dir` with the picture written to OUT (an .svg name, then a .png one when asked for) and
// compares the SVG with tests/golden/plots/<name>.svg.
void expect_plot_golden(const fs::path& dir, const std::string& command, const std::string& name) {
  TempDir out;
  const fs::path svg = out / (name + ".svg");
  const CommandResult r = run_cli_in(dir, replace_all(command, "OUT", quoted(svg)) + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
  EXPECT_EQ(r.out, "") << name << ": --quiet prints nothing";
  ASSERT_NO_FATAL_FAILURE(expect_golden(read_file(svg), fs::path("plots") / (name + ".svg")));
  if (const char* png_dir = std::getenv("GOLDEN_PNG_DIR")) {
    const CommandResult png = run_cli_in(
        dir, replace_all(command, "OUT", quoted(fs::path(png_dir) / (name + ".png"))) + " --quiet");
    EXPECT_EQ(png.exit_code, 0) << name << " as PNG: " << png.err;
  }
}

TEST(GoldenPlots, StatsHistogramsAndTrends) {
  TempDir tmp;
  const fs::path dir = fixed_checkpoints_in(tmp);
  expect_plot_golden(dir, "stats fixed-a.safetensors --plot OUT", "stats-histograms");
  expect_plot_golden(dir, "stats fixed-a.safetensors --trends OUT", "stats-trends");
}

TEST(GoldenPlots, CompareDrift) {
  TempDir tmp;
  const fs::path dir = fixed_checkpoints_in(tmp);
  expect_plot_golden(dir, "compare fixed-a.safetensors fixed-b.safetensors --plot OUT", "compare-drift");
}

TEST(GoldenPlots, PerfRoofline) {
  expect_plot_golden(example_dir().parent_path(),
                     "perf " + example_dir().filename().string() +
                         " --hw h200 --mode decode --plot-hw h200,b200 --plot-dtype fp8 --plot OUT",
                     "perf-roofline");
}

TEST(GoldenPlots, ReportDiagrams) {
  for (const std::string style : {"simple", "detailed"})
    expect_plot_golden(
        example_dir().parent_path(),
        example_dir().filename().string() + " --visualize --viz-style " + style + " --viz-output OUT",
        "report-diagram-" + style);
}

}  // namespace
}  // namespace ma::test
