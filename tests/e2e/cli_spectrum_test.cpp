// End-to-end: `modelanalyzer spectrum` on the built-in example and on bad input — every output it writes, the
// console's layout, and one clear line for what it refuses. Skips (visibly) without LAPACK; without it, what
// `spectrum` and `embeddings` say.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cli_test_support.h"
#include "formats/safetensors_writer.h"
#include "svg_test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

class CliSpectrum : public ::testing::Test {
 protected:
  void SetUp() override {
    CommandResult probe = run_cli("spectrum " + example() + " --quiet");
    if (probe.exit_code == 10) GTEST_SKIP() << "no LAPACK: " << probe.err;
    ASSERT_EQ(probe.exit_code, 0) << probe.err;
  }
};

TEST_F(CliSpectrum, ConsoleTablesByLayer) {
  CommandResult r = run_cli("spectrum " + example());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part :
       {"LAYER-BY-LAYER MATRIX ANALYSIS", "OUTSIDE THE LAYERS", "LAYER 0", "LAYER 1",
        "model.embed_tokens.weight", "q_proj", "mlp.gate_proj", "mlp.down_proj", "SVD 90%"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  EXPECT_EQ(r.out.find("\nLAYER 2"), std::string::npos) << "the example has two layers";
}

// Every file at once, each complete; the CSV has seed 004's columns first and a row per matrix.
TEST_F(CliSpectrum, WritesEveryOutput) {
  TempDir dir;
  CommandResult r = run_cli("spectrum " + example() + " --quiet --export " + quoted(dir / "s.json") +
                            " --csv " + quoted(dir / "s.csv") + " --markdown " + quoted(dir / "s.md") +
                            " --plot " + quoted(dir / "trend.svg") + " --spectrum-plot " +
                            quoted(dir / "sigma.svg") + " --show '*q_proj*'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string csv = read_file(dir / "s.csv");
  EXPECT_EQ(
      csv.rfind("model_path,model_id,revision,param_name,layer_index,block_type,shape,rows,cols,design_rank,"
                "actual_rank,rank_ratio,svd_90_percent_rank,svd_90_percent_ratio,mean,std,var,sparsity,dtype,"
                "created_at,",
                0),
      0u)
      << csv.substr(0, 300);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 17) << "a header and the example's 16 matrices";
  const std::string md = read_file(dir / "s.md");
  EXPECT_NE(md.find("# Spectrum: tiny-llama"), std::string::npos);
  EXPECT_NE(md.find("## Layer 1"), std::string::npos);
  EXPECT_NE(md.find("**Analysis Date:**"), std::string::npos);
  const std::string trend = read_file(dir / "trend.svg"), sigma = read_file(dir / "sigma.svg");
  if (have_xmllint()) {
    EXPECT_TRUE(xmllint_accepts(trend));
    EXPECT_TRUE(xmllint_accepts(sigma));
  }
  EXPECT_NE(trend.find("panel rank"), std::string::npos);
  EXPECT_NE(trend.find("panel alpha"), std::string::npos);
  EXPECT_NE(trend.find("tiny-llama"), std::string::npos);
  EXPECT_EQ(trend.find(example()), std::string::npos) << "the title names the model, not its path";
  EXPECT_NE(sigma.find("model.layers.0.self_attn.q_proj.weight"), std::string::npos);
  EXPECT_NE(sigma.find("model.layers.1.self_attn.q_proj.weight"), std::string::npos);
  EXPECT_EQ(sigma.find("k_proj"), std::string::npos) << "--show chose the q projections only";
}

// The spread of a matrix whose mean dwarfs it: E[x²] - mean² lost four digits of std at 1000 ± 0.001 (and all
// of them at larger offsets); the mean squared deviation keeps them.
TEST_F(CliSpectrum, StdOfAMatrixFarFromZeroKeepsItsDigits) {
  TempDir dir;
  std::vector<float> v(8 * 8);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1000.0f + static_cast<float>((i * 37) % 11) * 1e-3f;
  double mean = 0, deviations = 0;
  for (float x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (float x : v) deviations += (x - mean) * (x - mean);
  const double std_exact = std::sqrt(deviations / static_cast<double>(v.size()));
  write_safetensors(
      dir / "far.safetensors",
      {{"w", DType::F32, {8, 8}, std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4)}});
  CommandResult r = run_cli("spectrum " + quoted(dir / "far.safetensors") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("\"std\":");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NEAR(std::atof(r.out.c_str() + at + 6), std_exact, 1e-9 * std_exact);
}

TEST_F(CliSpectrum, RefusesWhatItCannotDecompose) {
  TempDir dir;
  // A NaN inside a matrix: no singular values. Beside a finite matrix it is skipped, named, and the other one
  // analysed (a diverged layer must not hide the rest); alone, one line naming the file and the tensor,
  // exit 3.
  std::string data(4 * 4 * 4, '\0');
  const float nan = std::nanf("");
  std::memcpy(data.data() + 20, &nan, 4);
  std::string finite(4 * 4 * 4, '\0');
  const float one = 1.0f;
  for (int i = 0; i < 4; ++i) std::memcpy(finite.data() + 4 * (5 * i), &one, 4);  // the identity
  write_safetensors(dir / "both.safetensors",
                    {{"w", DType::F32, {4, 4}, data}, {"v", DType::F32, {4, 4}, finite}});
  CommandResult both = run_cli("spectrum " + quoted(dir / "both.safetensors") + " --json");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("\"w: holds NaN or Inf, which have no singular values\""), std::string::npos)
      << both.out;
  EXPECT_NE(both.out.find("\"name\":\"v\""), std::string::npos) << both.out;
  write_safetensors(dir / "nan.safetensors", {{"w", DType::F32, {4, 4}, data}});
  CommandResult r = run_cli("spectrum " + quoted(dir / "nan.safetensors"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("nan.safetensors"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no matrix could be decomposed; the first: w: holds NaN or Inf"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // Only vectors: nothing to decompose.
  write_safetensors(dir / "vec.safetensors", {{"v", DType::F32, {4}, std::string(16, '\0')}});
  r = run_cli("spectrum " + quoted(dir / "vec.safetensors"));
  EXPECT_EQ(r.exit_code, 8) << r.err;
  // Usage errors name the option and what it accepts.
  r = run_cli("spectrum " + example() + " --method qr");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--method"), std::string::npos) << r.err;
  r = run_cli("spectrum " + example() + " --energy 1.5");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_cli("spectrum " + example() + " --spectrum-plot " + quoted(dir / "x.svg") + " --show 'nothing*'");
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_FALSE(fs::exists(dir / "x.svg"));
}

// Without --show the plot draws the first layer the checkpoint holds (a slice of a model starts past layer
// 0), or every matrix where none sits in a layer; it ended in "--show: no matrix matches", an option not
// given.
TEST_F(CliSpectrum, TheDefaultPlotDrawsTheFirstLayerThere) {
  TempDir dir;
  std::string data(16 * 4, '\0');
  for (size_t i = 0; i < 16; ++i) {
    const float v = static_cast<float>((i * 7) % 5) - 2.0f + (i % 5 == 0 ? 3.0f : 0.0f);
    std::memcpy(data.data() + 4 * i, &v, 4);
  }
  fs::create_directories(dir / "slice");
  fs::create_directories(dir / "flat");
  write_safetensors(dir / "slice" / "model.safetensors",
                    {{"model.layers.3.mlp.down_proj.weight", DType::F32, {4, 4}, data},
                     {"model.layers.4.mlp.down_proj.weight", DType::F32, {4, 4}, data}});
  write_safetensors(dir / "flat" / "model.safetensors", {{"w", DType::F32, {4, 4}, data}});
  for (const char* model : {"slice", "flat"}) {
    const fs::path svg = dir / (std::string(model) + ".svg");
    CommandResult r = run_cli("spectrum " + quoted(dir / model) + " --quiet --spectrum-plot " + quoted(svg));
    ASSERT_EQ(r.exit_code, 0) << model << ": " << r.err;
    const std::string drawn = read_file(svg);
    EXPECT_NE(drawn.find(std::string(model) == "slice" ? "layers.3.mlp.down_proj" : ">w<"), std::string::npos)
        << drawn.substr(0, 2000);
    if (std::string(model) == "slice") {
      EXPECT_EQ(drawn.find("layers.4."), std::string::npos);
    }
  }
}

// Where LAPACK cannot be loaded (here: a library of that name that is none, found first on LD_LIBRARY_PATH),
// the two commands that need it say which package to install (exit 10) and write nothing, and every other
// command still runs: the libraries are loaded by the first command that needs them, not at start-up.
TEST(CliWithoutLapack, SpectrumAndEmbeddingsSayWhatToInstallAndTheRestRuns) {
  TempDir dir;
  for (const char* name : {"liblapack.so.3", "libblas.so.3"}) write_file(dir / name, "not a library\n");
  const std::string env = "LD_LIBRARY_PATH=" + quoted(dir.path());
  for (const char* command : {"spectrum", "embeddings"}) {
    SCOPED_TRACE(command);
    const fs::path out = dir / (std::string(command) + ".json");
    CommandResult r = run_cli_env(env, std::string(command) + " " + example() + " --export " + quoted(out));
    EXPECT_EQ(r.exit_code, 10) << r.err;
    EXPECT_NE(r.err.find("liblapack.so.3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("apt-get install libopenblas0-pthread"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  CommandResult report = run_cli_env(env, example() + " --json");
  EXPECT_EQ(report.exit_code, 0) << report.err;
}

}  // namespace
}  // namespace ma::test
