// How `spectrum` prints a matrix's mean and std, and lines its table up. Four fixed decimals printed a LoRA
// matrix's std of 2.9e-5 as "0.0000" and a 1e35 mean as 36 digits: they are printed as `stats` prints them
// (table_number: scientific below 1e-4 and from 1e6). A cell holding "≥ 8/64" ("≥" is 3 bytes, 1 column)
// pushed every later column of its row 2 columns right: tables are padded by display width.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/spectrum/model_spectrum.h"
#include "core/json.h"
#include "report/console_writer.h"
#include "report/spectrum_report.h"

namespace ma {
namespace {

// Terminal columns of UTF-8 text without wide characters: its code points (bytes that are not 10xxxxxx).
size_t console_format_columns(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> console_format_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The display column where `part` starts on the first line holding `key`; npos when none does.
size_t console_format_column_of(const std::vector<std::string>& lines, std::string_view key,
                                std::string_view part) {
  for (const std::string& line : lines) {
    if (line.find(key) == std::string::npos) continue;
    const size_t at = line.find(part);
    if (at == std::string::npos) return std::string::npos;
    return console_format_columns(std::string_view(line).substr(0, at));
  }
  return std::string::npos;
}

MatrixSpectrum console_format_matrix(ModuleClass c, double mean, double std, double stable_rank) {
  MatrixSpectrum m;
  m.name = "m";
  m.layer = 0;
  m.module_class = c;
  m.rows = m.cols = 64;
  m.mean = mean;
  m.std = std;
  m.metrics.design_rank = 64;
  m.metrics.stable_rank = stable_rank;
  m.metrics.spectral_norm = 1;
  return m;
}

TEST(SpectrumConsoleFormat, SmallAndLargeMeansKeepTheirDigits) {
  ModelSpectrum s;
  s.matrices.push_back(console_format_matrix(ModuleClass::QProj, -1.7639e-07, 2.8771e-05, 5.25));
  s.matrices.push_back(console_format_matrix(ModuleClass::KProj, -2.1321569609284534e+34, 1.01e+37, 7.5));
  const std::string out = render_spectrum_console(s, false);
  EXPECT_NE(out.find("-1.7639e-07"), std::string::npos) << out;
  EXPECT_NE(out.find("2.8771e-05"), std::string::npos) << out;
  EXPECT_NE(out.find("-2.1322e+34"), std::string::npos) << out;
  EXPECT_NE(out.find("1.0100e+37"), std::string::npos) << out;
  EXPECT_EQ(out.find("0.0000 "), std::string::npos) << out;
  EXPECT_EQ(out.find("21321569609284534"), std::string::npos) << out;
}

TEST(SpectrumConsoleFormat, ColumnsLineUpAfterARankLowerBound) {
  ModelSpectrum s;
  MatrixSpectrum bound = console_format_matrix(ModuleClass::QProj, 0.001, 0.02, 5.25);
  bound.metrics.actual_rank_lower_bound = 8;  // "≥ 8/64"
  bound.metrics.rank_90_lower_bound = 8;
  MatrixSpectrum exact = console_format_matrix(ModuleClass::KProj, 0.001, 0.02, 7.5);
  exact.metrics.actual_rank = 64;  // "64/64 (100.0%)"
  exact.metrics.rank_90 = 33;
  s.matrices = {bound, exact};
  const std::vector<std::string> lines = console_format_lines(render_spectrum_console(s, false));
  const size_t header = console_format_column_of(lines, "Stable rank", "Stable rank");
  ASSERT_NE(header, std::string::npos);
  EXPECT_EQ(console_format_column_of(lines, "≥ 8/64", "5.25"), header);
  EXPECT_EQ(console_format_column_of(lines, "64/64", "7.5"), header);
}

TEST(SpectrumConsoleFormat, ConsoleWriterPadsByDisplayWidth) {
  ConsoleWriter w(false);
  w.table({"a", "b"}, {{"σσσ", "x"}, {"abc", "y"}, {"≥ 1", "z"}});
  const std::vector<std::string> lines = console_format_lines(w.take());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(console_format_column_of(lines, "σσσ", "x"), 7u) << "2 indent + 3 columns + 2 spaces";
  EXPECT_EQ(console_format_column_of(lines, "abc", "y"), 7u);
  EXPECT_EQ(console_format_column_of(lines, "≥ 1", "z"), 7u);
}

// The reason α is unset is in the JSON beside the null, with the threshold the console's footnote names.
TEST(SpectrumConsoleFormat, JsonSaysWhyAlphaIsUnset) {
  ModelSpectrum s;
  MatrixSpectrum m = console_format_matrix(ModuleClass::QProj, 0, 1, 1);
  m.metrics.alpha_unset = "too few eigenvalues to fit";
  m.metrics.alpha_eigenvalues = 2;
  s.matrices = {m};
  std::string text;
  stream_spectrum_json(s, RunInfo{}, false, [&](std::string_view part) { text += part; });
  const json::Document d = json::Document::parse(text, "spectrum json");
  EXPECT_DOUBLE_EQ(d.root().find("alpha_eigenvalue_threshold")->as_double(), 1e-5);
  const json::Value& t = d.root().find("tensors")->items().at(0);
  EXPECT_TRUE(t.find("alpha")->is_null());
  EXPECT_EQ(t.find("alpha_unset_reason")->as_string(), "too few eigenvalues to fit");
  EXPECT_EQ(t.find("alpha_eigenvalues")->as_uint(), 2u);
  EXPECT_NE(render_spectrum_console(s, false).find("fitted to those above 1e-05"), std::string::npos);
}

}  // namespace
}  // namespace ma
