// `modelanalyzer perf --hw FILE.json` end to end: a profile without a memory size leaves the capacity unknown
// (not "DOES NOT FIT ... of 0 B"), a profile that changes a table entry is named as modified wherever the
// hardware is named (console, MFU line, JSON), and the roofline's caption says truthfully which points
// --roofline-labels names (none, all, or at most a count).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_test_support.h"
#include "core/json.h"
#include "svg_test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

// The text of an SVG group (its <text> elements' contents, tags dropped), lines joined by spaces: a
// caption wrapped over several lines reads as one.
std::string customhw_group_text(const std::string& svg, const std::string& cls) {
  const std::string group = svg_group(svg, cls);
  std::string text;
  bool in_tag = false;
  for (char c : group) {
    if (c == '<') {
      in_tag = true;
      if (!text.empty() && text.back() != ' ') text += ' ';
    } else if (c == '>') {
      in_tag = false;
    } else if (!in_tag && c != '\n') {
      text += c;
    }
  }
  return text;
}

// The console's line that begins with `label` (after the indent), or "".
std::string customhw_console_line(const std::string& console, const std::string& label) {
  const size_t at = console.find("\n  " + label);
  if (at == std::string::npos) return "";
  return console.substr(at + 1, console.find('\n', at + 1) - at - 1);
}

TEST(CliPerfCustomHw, AProfileWithoutMemorySizeLeavesTheCapacityUnknown) {
  TempDir dir;
  const fs::path profile = dir / "nomem.json";
  write_file(profile, R"({"hbm_gbps": 3000, "peak_tflops": {"bf16": 900}, "scalar_tflops": 60})");
  CommandResult r = run_cli("perf " + example() + " --hw " + quoted(profile));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "DOES NOT FIT")) << r.out;
  EXPECT_FALSE(contains(r.out, "of 0 B")) << r.out;
  const std::string line = customhw_console_line(r.out, "capacity");
  EXPECT_TRUE(contains(line, "unknown")) << r.out;
  EXPECT_TRUE(contains(line, "hbm_gb")) << line;
  EXPECT_TRUE(contains(line, "per device needed")) << line;

  CommandResult j = run_cli("perf " + example() + " --hw " + quoted(profile) + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json::Document d = json::Document::parse(j.out, "perf");
  const json::Value* capacity = d.root().find("capacity");
  ASSERT_TRUE(capacity && capacity->is_object());
  EXPECT_TRUE(capacity->find("fits")->is_null()) << "no fit judged";
  EXPECT_TRUE(capacity->find("capacity_bytes")->is_null());
  EXPECT_GT(capacity->find("bytes_per_device")->as_uint().value_or(0), 0u) << "what the step needs is known";
  EXPECT_TRUE(contains(std::string(capacity->find("advice")->as_string()), "hbm_gb"));

  // With a memory size the same profile is judged as before.
  write_file(dir / "mem.json",
             R"({"hbm_gbps": 3000, "hbm_gb": 80, "peak_tflops": {"bf16": 900}, "scalar_tflops": 60})");
  CommandResult m = run_cli("perf " + example() + " --hw " + quoted(dir / "mem.json"));
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_TRUE(contains(customhw_console_line(m.out, "capacity"), "fits: ")) << m.out;
}

TEST(CliPerfCustomHw, AModifiedTableEntryIsNamedAsModified) {
  TempDir dir;
  write_file(dir / "slower.json", R"({"base": "h200", "hbm_gbps": 2400})");
  CommandResult r = run_cli("perf " + example() + " --hw " + quoted(dir / "slower.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string hardware = customhw_console_line(r.out, "hardware");
  EXPECT_TRUE(contains(hardware, "modified by slower.json: hbm_gbps")) << hardware;
  EXPECT_FALSE(contains(hardware, "(h200)")) << hardware;
  const std::string mfu = customhw_console_line(r.out, "MFU_est");
  EXPECT_TRUE(contains(mfu, "h200 modified by slower.json")) << mfu;

  CommandResult j = run_cli("perf " + example() + " --hw " + quoted(dir / "slower.json") + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json::Document d = json::Document::parse(j.out, "perf");
  const json::Value& hw = *d.root().find("hardware");
  EXPECT_EQ(hw.find("name")->as_string(), "h200 modified by slower.json");
  EXPECT_TRUE(contains(hw.find("description")->as_string(), "modified by slower.json: hbm_gbps"));
  EXPECT_TRUE(contains(hw.find("source")->as_string(), "hbm_gbps"));
  EXPECT_EQ(hw.find("hbm_gbps")->as_double(), 2400);

  // A base given unchanged is the table entry itself; a name the file gives is kept.
  write_file(dir / "same.json", R"({"base": "h200", "hbm_gbps": 4800})");
  CommandResult same = run_cli("perf " + example() + " --hw " + quoted(dir / "same.json") + " --json");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(json::Document::parse(same.out, "same").root().find("hardware")->find("name")->as_string(),
            "h200");
  write_file(dir / "named.json", R"({"base": "h200", "name": "my-h200", "hbm_gbps": 2400})");
  CommandResult named = run_cli("perf " + example() + " --hw " + quoted(dir / "named.json"));
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_TRUE(contains(customhw_console_line(named.out, "MFU_est"), "my-h200")) << named.out;
  EXPECT_TRUE(contains(customhw_console_line(named.out, "hardware"), "modified by named.json: hbm_gbps"))
      << named.out;
}

TEST(CliPerfCustomHw, TheRooflineCaptionSaysWhichPointsAreLabelled) {
  TempDir dir;
  auto caption = [&](const std::string& mode) {
    const fs::path svg = dir / ("r-" + mode + ".svg");
    CommandResult r =
        run_cli("perf " + example() + " --quiet --roofline-labels " + mode + " --plot " + quoted(svg));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return customhw_group_text(read_file(svg), "caption");
  };
  const std::string all = caption("all"), none = caption("none"), normal = caption("normal");
  EXPECT_FALSE(contains(all, "18446744073709551615")) << all;
  EXPECT_TRUE(contains(all, "Labelled: every point")) << all;
  EXPECT_FALSE(contains(none, "at most 0")) << none;
  EXPECT_FALSE(contains(none, "Labelled: the step")) << none;
  EXPECT_TRUE(contains(none, "No point is labelled")) << none;
  EXPECT_TRUE(contains(normal, "Labelled: the step and the largest ops by FLOPs (at most 12 per panel)"))
      << normal;
  EXPECT_TRUE(contains(caption("minimal"), "(at most 4 per panel)"));
}

}  // namespace
}  // namespace ma::test
