// Seed 004's `--model_path data/models` for every command that reads the weights: `spectrum` and `embeddings`
// take a directory of models as `stats` does (one folder search, cli/model_folders.h): each model analysed,
// its CSV lines and JSON document carrying its model_id (a Hugging Face cache snapshot's commit in the
// revision column), a console block per model, and the figures of one model refused. Symlinked entries are
// not followed, and the error or warning says so. Skips (visibly) without LAPACK.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "cli_test_support.h"
#include "core/json.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

// A directory of models: the built-in example copied to each of `ids` (paths under `root`).
void folders_copy_example(const fs::path& root, std::initializer_list<const char*> ids) {
  for (const char* id : ids) {
    fs::create_directories(root / id);
    for (const char* f : {"config.json", "model.safetensors"})
      fs::copy_file(example_dir() / f, root / id / f);
  }
}

// A CSV's lines (after its header) counted by their value in column `column` (0-based, no quoted commas).
std::map<std::string, size_t> folders_rows_by_column(const std::string& csv, size_t column) {
  std::map<std::string, size_t> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    size_t from = 0;
    for (size_t i = 0; i < column; ++i) from = line.find(',', from) + 1;
    ++rows[line.substr(from, line.find(',', from) - from)];
  }
  return rows;
}

// Spectrum's CSV: each model_id (column 1) with its revision (column 2).
std::map<std::string, std::string> folders_revision_by_model(const std::string& csv) {
  std::map<std::string, std::string> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const size_t a = line.find(','), b = line.find(',', a + 1), c = line.find(',', b + 1);
    out[line.substr(a + 1, b - a - 1)] = line.substr(b + 1, c - b - 1);
  }
  return out;
}

// True (the test skips) when the command found no LAPACK (exit 10).
bool folders_without_lapack(const CommandResult& r) {
  return r.exit_code == 10 && r.err.find("LAPACK") != std::string::npos;
}

TEST(CliModelFolders, SpectrumTakesADirectoryOfModelsAsStatsDoes) {
  TempDir dir;
  folders_copy_example(dir.path(), {"org/tiny", "plain"});
  CommandResult single = run_cli("spectrum " + example() + " --csv - --quiet");
  if (folders_without_lapack(single)) GTEST_SKIP() << "no LAPACK: " << single.err;
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const size_t matrices = folders_rows_by_column(single.out, 1).begin()->second;
  ASSERT_GT(matrices, 0u);

  CommandResult csv = run_cli("spectrum " + quoted(dir.path()) + " --csv - --quiet");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("model_path,model_id,revision,", 0), 0u) << csv.out.substr(0, 200);
  EXPECT_EQ(occurrences(csv.out, "model_path,"), 1u) << "one header";
  EXPECT_EQ(folders_rows_by_column(csv.out, 1),
            (std::map<std::string, size_t>{{"org/tiny", matrices}, {"plain", matrices}}));

  CommandResult j = run_cli("spectrum " + quoted(dir.path()) + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json::Document d = json::Document::parse(j.out, "spectrum array");
  ASSERT_EQ(d.root().items().size(), 2u);
  EXPECT_EQ(d.root().items()[0].find("model_id")->as_string(), "org/tiny");
  EXPECT_EQ(d.root().items()[1].find("model_id")->as_string(), "plain");

  CommandResult console = run_cli("spectrum " + quoted(dir.path()));
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_TRUE(contains(console.out, "MODEL org/tiny\n")) << console.out.substr(0, 400);
  EXPECT_TRUE(contains(console.out, "\nMODEL plain\n"));
  EXPECT_EQ(occurrences(console.out, "LAYER-BY-LAYER MATRIX ANALYSIS"), 2u);

  // A figure draws one model: refused, naming the flag, before anything is decomposed.
  CommandResult plot =
      run_cli("spectrum " + quoted(dir.path()) + " --spectrum-plot " + quoted(dir / "s.svg"));
  EXPECT_EQ(plot.exit_code, 2) << plot.err;
  EXPECT_TRUE(contains(plot.err, "--spectrum-plot")) << plot.err;
  EXPECT_FALSE(fs::exists(dir / "s.svg"));
}

TEST(CliModelFolders, SpectrumReadsTheHuggingFaceCacheAsRepoIdsAtTheirCommits) {
  TempDir cache;
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  folders_copy_example(cache.path(),
                       {"models--org--tiny/snapshots/0123456789abcdef0123456789abcdef01234567"});
  folders_copy_example(cache.path(), {"models--plain/snapshots/0123456789abcdef0123456789abcdef01234567"});
  CommandResult r = run_cli("spectrum " + quoted(cache.path()) + " --csv - --quiet");
  if (folders_without_lapack(r)) GTEST_SKIP() << "no LAPACK: " << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(folders_revision_by_model(r.out),
            (std::map<std::string, std::string>{{"org/tiny", commit}, {"plain", commit}}));
}

TEST(CliModelFolders, EmbeddingsTakesADirectoryOfModelsAsStatsDoes) {
  TempDir dir;
  folders_copy_example(dir.path(), {"org/tiny", "plain"});
  CommandResult single = run_cli("embeddings " + example() + " --k 2 --json");
  if (folders_without_lapack(single)) GTEST_SKIP() << "no LAPACK: " << single.err;
  ASSERT_EQ(single.exit_code, 0) << single.err;
  const json::Document one = json::Document::parse(single.out, "embeddings");
  const uint64_t rows = one.root().find("rows")->as_uint().value_or(0);
  ASSERT_GT(rows, 0u);

  CommandResult csv = run_cli("embeddings " + quoted(dir.path()) + " --k 2 --csv - --quiet");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("model_id,tensor,row,", 0), 0u) << csv.out.substr(0, 200);
  EXPECT_EQ(occurrences(csv.out, "model_id,"), 1u) << "one header";
  EXPECT_EQ(folders_rows_by_column(csv.out, 0),
            (std::map<std::string, size_t>{{"org/tiny", rows}, {"plain", rows}}));

  CommandResult j = run_cli("embeddings " + quoted(dir.path()) + " --k 2 --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json::Document d = json::Document::parse(j.out, "embeddings array");
  ASSERT_EQ(d.root().items().size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(d.root().items()[i].find("model_id")->as_string(), i == 0 ? "org/tiny" : "plain");
    // The same weights, the same seed: the same clustering as the model alone.
    const double inertia = one.root().find("inertia")->as_double();
    EXPECT_NEAR(d.root().items()[i].find("inertia")->as_double(), inertia, 1e-9 * inertia);
  }

  CommandResult console = run_cli("embeddings " + quoted(dir.path()) + " --k 2");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_TRUE(contains(console.out, "MODEL org/tiny\n")) << console.out.substr(0, 400);
  EXPECT_TRUE(contains(console.out, "\nMODEL plain\n"));

  CommandResult plot =
      run_cli("embeddings " + quoted(dir.path()) + " --k 2 --elbow-plot " + quoted(dir / "e.svg"));
  EXPECT_EQ(plot.exit_code, 2) << plot.err;
  EXPECT_TRUE(contains(plot.err, "--elbow-plot")) << plot.err;
  EXPECT_FALSE(fs::exists(dir / "e.svg"));
}

// A model linked into the directory is not followed: with nothing else there the error says so (it blamed the
// directory's contents), beside other models a warning names the link. The same for every weight command.
TEST(CliModelFolders, SymlinkedModelsAreNamedAsNotFollowed) {
  TempDir dir;
  folders_copy_example(dir.path(), {"elsewhere/tiny"});
  fs::create_directories(dir / "only-link");
  fs::create_directory_symlink(dir / "elsewhere" / "tiny", dir / "only-link" / "linked");
  for (const char* command : {"stats", "spectrum", "embeddings"}) {
    CommandResult r = run_cli(std::string(command) + " " + quoted(dir / "only-link"));
    EXPECT_EQ(r.exit_code, 8) << command << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "symlinked entries are not followed")) << command << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "(linked)")) << command << ": " << r.err;
  }

  fs::create_directories(dir / "mixed");
  folders_copy_example(dir / "mixed", {"real"});
  fs::create_directory_symlink(dir / "elsewhere" / "tiny", dir / "mixed" / "linked");
  CommandResult r = run_cli("stats " + quoted(dir / "mixed") + " --csv -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning:")) << r.err;
  EXPECT_TRUE(contains(r.err, "symlinked entries are not followed (linked)")) << r.err;
  EXPECT_EQ(folders_rows_by_column(r.out, 1).count("linked"), 0u);
  EXPECT_EQ(folders_rows_by_column(r.out, 1).count("real"), 1u);
}

}  // namespace
}  // namespace ma::test
