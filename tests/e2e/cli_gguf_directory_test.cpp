// A local directory of several GGUF models (the quantizations LM Studio and `huggingface-cli download` leave
// side by side) answered as a Hub repository of them is: the report lists them from their headers, every
// other command asks which one is meant, and --file chooses one by file name or quantization. So are a -GGUF
// repository's folders downloaded as they are, and a cache snapshot another tool wrote, read offline.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/gguf_writer.h"
#include "gguf_test_models.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

// Tensor bytes and the parameters of the matrices' type, from the writer's own tensor list.
struct WrittenFigures {
  uint64_t bytes = 0, typed = 0;
};
WrittenFigures written_figures(const TinyGguf& m) {
  WrittenFigures e;
  for (const TensorToWrite& t : tiny_gguf_tensors(m)) {
    e.bytes += dtype_bytes(numel(t.shape), t.dtype);
    if (t.dtype == m.matrix_type) e.typed += numel(t.shape);
  }
  return e;
}

// The two parts of a split Q4_0 model, as llama.cpp's gguf-split names and numbers them.
void write_two_part_model(const fs::path& dir, const std::string& prefix) {
  const TinyGguf m{.matrix_type = DType::Q4_0};
  const std::vector<TensorToWrite> tensors = tiny_gguf_tensors(m);
  const size_t half = tensors.size() / 2;
  for (uint32_t part = 0; part < 2; ++part) {
    std::vector<GgufValueToWrite> kv = part == 0 ? tiny_gguf_metadata(m) : std::vector<GgufValueToWrite>{};
    kv.push_back(gguf_u32("split.no", part));
    kv.push_back(gguf_u32("split.count", 2));
    const std::vector<TensorToWrite> mine(tensors.begin() + (part ? half : 0),
                                          part ? tensors.end() : tensors.begin() + half);
    write_gguf(dir / (prefix + "0000" + std::to_string(part + 1) + "-of-00002.gguf"), kv, mine);
  }
}

class CliGgufDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    write_tiny_gguf(dir_ / "tiny.Q4_K_M.gguf", q4_);
    write_tiny_gguf(dir_ / "tiny.Q8_0.gguf", q8_);
    write_tiny_gguf(dir_ / "mmproj-tiny-f16.gguf", {});  // a vision projector: no model of its own
    write_two_part_model(dir_.path(), "tiny.Q4_0-");
  }
  std::string dir() const { return "'" + dir_.path().string() + "'"; }

  TempDir dir_;
  // Q4_K's blocks are 256 wide: its rows are too.
  const TinyGguf q4_{.hidden = 256, .ffn = 512, .matrix_type = DType::Q4_K}, q8_{.matrix_type = DType::Q8_0};
};

TEST_F(CliGgufDirectory, TheReportListsEveryModelWithItsTypeMix) {
  CommandResult r = run_cli(dir() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  const std::vector<json::Value>& models = d.root().find("gguf_models")->items();
  ASSERT_EQ(models.size(), 3u);  // the split model once, the projector not at all
  EXPECT_EQ(models[0].find("file")->as_string(), "tiny.Q4_0-00001-of-00002.gguf");
  EXPECT_EQ(models[0].find("parts")->as_uint(), 2u);
  EXPECT_EQ(models[1].find("file")->as_string(), "tiny.Q4_K_M.gguf");
  EXPECT_EQ(models[2].find("file")->as_string(), "tiny.Q8_0.gguf");
  const TinyGguf q4_0{.matrix_type = DType::Q4_0};
  const TinyGguf* written[] = {&q4_0, &q4_, &q8_};
  for (size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(models[k].find("file")->as_string());
    const WrittenFigures e = written_figures(*written[k]);
    const uint64_t parameters = tiny_gguf_parameters(*written[k]);
    EXPECT_EQ(models[k].find("parameters")->as_uint(), parameters);
    EXPECT_EQ(models[k].find("tensor_bytes")->as_uint(), e.bytes);
    EXPECT_DOUBLE_EQ(models[k].find("bits_per_weight")->as_double(),
                     8.0 * static_cast<double>(e.bytes) / static_cast<double>(parameters));
    const json::Value& first = models[k].find("types")->items().at(0);  // most parameters: the matrices'
    EXPECT_EQ(first.find("dtype")->as_string(), dtype_info(written[k]->matrix_type).short_name);
    EXPECT_EQ(first.find("parameters")->as_uint(), e.typed);
    EXPECT_TRUE(models[k].find("error")->is_null());
  }
  // The files' sizes, both parts of the split model together.
  std::error_code ec;
  EXPECT_EQ(models[0].find("size_bytes")->as_uint(),
            fs::file_size(dir_ / "tiny.Q4_0-00001-of-00002.gguf", ec) +
                fs::file_size(dir_ / "tiny.Q4_0-00002-of-00002.gguf", ec));
  EXPECT_EQ(models[2].find("size_bytes")->as_uint(), fs::file_size(dir_ / "tiny.Q8_0.gguf", ec));

  CommandResult console = run_cli(dir());
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("3 GGUF models"), std::string::npos) << console.out;
  EXPECT_NE(console.out.find("tiny.Q8_0.gguf"), std::string::npos) << console.out;
  EXPECT_NE(console.out.find("analyse one with --file"), std::string::npos) << console.out;
  EXPECT_EQ(console.out.find("mmproj"), std::string::npos) << console.out;

  // A file only a report can be (the page, an export, the diagram) is not a listing: which model is asked.
  for (const std::string flags : {"--html page.html", "--export r.json", "--visualize"}) {
    SCOPED_TRACE(flags);
    CommandResult asked = run_cli_in(dir_.path(), ". " + flags);
    EXPECT_EQ(asked.exit_code, 2) << asked.err;
    EXPECT_NE(asked.err.find("holds 3 GGUF models"), std::string::npos) << asked.err;
    for (const char* file : {"page.html", "r.json", "model_architecture.png"})
      EXPECT_FALSE(fs::exists(dir_ / file)) << file;
  }
}

TEST_F(CliGgufDirectory, OtherCommandsAskWhichAndFileChooses) {
  CommandResult ask = run_cli("tensors " + dir() + " --json");
  EXPECT_EQ(ask.exit_code, 2) << ask.err;
  EXPECT_NE(ask.err.find("holds 3 GGUF models (tiny.Q4_0-00001-of-00002.gguf, tiny.Q4_K_M.gguf, "
                         "tiny.Q8_0.gguf)"),
            std::string::npos)
      << ask.err;
  EXPECT_NE(ask.err.find("--file NAME"), std::string::npos) << ask.err;
  EXPECT_TRUE(ask.out.empty()) << ask.out;

  // By quantization (case aside), by file name, by a split model's name without its part suffix.
  const TinyGguf q4_0{.matrix_type = DType::Q4_0};
  const std::tuple<const char*, const char*, const TinyGguf*> choices[] = {
      {"q8_0", "q8_0", &q8_}, {"tiny.Q4_K_M.gguf", "q4_k", &q4_}, {"tiny.Q4_0", "q4_0", &q4_0}};
  for (const auto& [selector, matrices, written] : choices) {
    SCOPED_TRACE(selector);
    CommandResult r = run_cli("tensors " + dir() + " --file " + selector + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json::Document d = json::Document::parse(r.out, "stdout");
    EXPECT_EQ(d.root().find("checkpoint")->find("format")->as_string(), "gguf");
    EXPECT_EQ(d.root().find("checkpoint")->find("parameters")->as_uint(), tiny_gguf_parameters(*written));
    EXPECT_NE(r.out.find(std::string("\"dtype\":\"") + matrices + "\""), std::string::npos);
    for (const char* other : {"q8_0", "q4_k", "q4_0"}) {
      if (std::string(other) != matrices) {
        EXPECT_EQ(r.out.find(std::string("\"dtype\":\"") + other + "\""), std::string::npos) << other;
      }
    }
  }
  // The commands that read every weight choose the same way: stats scans every tensor of the Q8_0 model
  // and no other file's.
  CommandResult stats = run_cli("stats " + dir() + " --file Q8_0 --json");
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const json::Document s = json::Document::parse(stats.out, "stdout");
  EXPECT_EQ(s.root().find("summary")->find("total_parameters")->as_uint(), tiny_gguf_parameters(q8_));
  EXPECT_EQ(s.root().find("summary")->find("tensors")->as_uint(), tiny_gguf_tensors(q8_).size());
  EXPECT_NE(stats.out.find("\"dtype\":\"q8_0\""), std::string::npos);

  CommandResult none = run_cli("tensors " + dir() + " --file Q2_K");
  EXPECT_EQ(none.exit_code, 8) << none.err;  // not found, as a missing file
  EXPECT_NE(none.err.find("--file: no GGUF model matches 'Q2_K'; the directory holds tiny.Q4_0-"),
            std::string::npos)
      << none.err;
  CommandResult no_onnx = run_cli("tensors " + dir() + " --file model.onnx");
  EXPECT_EQ(no_onnx.exit_code, 8) << no_onnx.err;
  EXPECT_NE(no_onnx.err.find("no ONNX model is 'model.onnx': the directory holds no .onnx file"),
            std::string::npos)
      << no_onnx.err;
  // --file chooses among a directory's models; a file is the model itself.
  CommandResult of_file = run_cli("tensors '" + (dir_ / "tiny.Q8_0.gguf").string() + "' --file Q4_K_M");
  EXPECT_EQ(of_file.exit_code, 2) << of_file.err;
  EXPECT_NE(of_file.err.find("--file: chooses one model of a directory or a Hub repository"),
            std::string::npos)
      << of_file.err;
}

// A split model missing a part is named in the listing with why; the others are still listed.
TEST_F(CliGgufDirectory, AModelMissingAPartIsNamedAndTheOthersListed) {
  fs::remove(dir_ / "tiny.Q4_0-00002-of-00002.gguf");
  CommandResult r = run_cli(dir() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  const std::vector<json::Value>& models = d.root().find("gguf_models")->items();
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[0].find("file")->as_string(), "tiny.Q4_0-00001-of-00002.gguf");
  EXPECT_NE(models[0].find("error")->as_string().find("tiny.Q4_0-00002-of-00002.gguf"), std::string::npos)
      << r.out;
  EXPECT_EQ(models[0].find("parameters")->as_uint(), 0u);
  EXPECT_EQ(models[1].find("parameters")->as_uint(), tiny_gguf_parameters(q4_));
  EXPECT_TRUE(models[2].find("error")->is_null());
}

// Without its first part a split model was passed over: listed nowhere, and a directory holding nothing
// else was said to hold no GGUF file. It is named, its first part missing, as a model missing a later part
// is; a directory of a projector alone says so.
TEST_F(CliGgufDirectory, AModelMissingItsFirstPartIsNamed) {
  fs::remove(dir_ / "tiny.Q4_0-00001-of-00002.gguf");
  CommandResult r = run_cli(dir() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  const std::vector<json::Value>& models = d.root().find("gguf_models")->items();
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[0].find("file")->as_string(), "tiny.Q4_0-00001-of-00002.gguf");
  EXPECT_NE(models[0].find("error")->as_string().find(
                "split part 1: tiny.Q4_0-00001-of-00002.gguf is not in the directory"),
            std::string::npos)
      << r.out;
  for (const char* other : {"tiny.Q4_K_M.gguf", "tiny.Q8_0.gguf", "mmproj-tiny-f16.gguf"})
    fs::remove(dir_ / other);
  r = run_cli(dir());
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("split part 1: tiny.Q4_0-00001-of-00002.gguf is missing"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("holds no"), std::string::npos) << r.err;

  TempDir projector;
  write_tiny_gguf(projector / "mmproj-tiny-f16.gguf", {});
  r = run_cli("'" + projector.path().string() + "'");
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("holds only multimodal projectors (mmproj-tiny-f16.gguf), no GGUF model"),
            std::string::npos)
      << r.err;
}

// A -GGUF repository downloaded as it is laid out, a folder per large quantization and nothing at the top
// but config.json (which a GGUF model does not need): its one model is read, several are listed or asked for,
// and once other weights lie below it is no GGUF repository (a directory of models, or a config).
TEST(CliGgufFolders, ModelsInFoldersAreReadListedAndChosen) {
  TempDir dir;
  const TinyGguf q4{.hidden = 256, .ffn = 512, .matrix_type = DType::Q4_K};
  fs::create_directories(dir / "UD-Q4_K_M");
  write_tiny_gguf(dir / "UD-Q4_K_M" / "tiny-UD-Q4_K_M.gguf", q4);
  write_file(dir / "config.json", R"({"model_type": "llama", "hidden_size": 4096})");
  const std::string d = "'" + dir.path().string() + "'";
  CommandResult one = run_cli("tensors " + d + " --json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const json::Document read = json::Document::parse(one.out, "stdout");
  EXPECT_EQ(read.root().find("checkpoint")->find("format")->as_string(), "gguf");
  EXPECT_EQ(read.root().find("checkpoint")->find("parameters")->as_uint(), tiny_gguf_parameters(q4));

  fs::create_directories(dir / "Q4_0");
  write_two_part_model(dir / "Q4_0", "tiny-Q4_0-");
  CommandResult ask = run_cli("tensors " + d);
  EXPECT_EQ(ask.exit_code, 2) << ask.err;
  EXPECT_NE(ask.err.find("holds 2 GGUF models in its folders (Q4_0/tiny-Q4_0-00001-of-00002.gguf, "
                         "UD-Q4_K_M/tiny-UD-Q4_K_M.gguf)"),
            std::string::npos)
      << ask.err;
  CommandResult list = run_cli(d + " --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const json::Document listed = json::Document::parse(list.out, "stdout");
  const std::vector<json::Value>& models = listed.root().find("gguf_models")->items();
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].find("file")->as_string(), "Q4_0/tiny-Q4_0-00001-of-00002.gguf");
  EXPECT_EQ(models[0].find("parts")->as_uint(), 2u);
  EXPECT_EQ(models[1].find("file")->as_string(), "UD-Q4_K_M/tiny-UD-Q4_K_M.gguf");
  CommandResult chosen = run_cli("tensors " + d + " --file Q4_0 --json");
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_NE(chosen.out.find("\"dtype\":\"q4_0\""), std::string::npos);
  EXPECT_EQ(chosen.out.find("\"dtype\":\"q4_k\""), std::string::npos);

  fs::create_directories(dir / "original");
  fs::copy_file(example_dir() / "model.safetensors", dir / "original" / "model.safetensors");
  CommandResult other = run_cli("tensors " + d + " --json");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  const json::Document config = json::Document::parse(other.out, "stdout");
  EXPECT_EQ(config.root().find("origin")->as_string(), "template");  // config.json's model, no checkpoint
  EXPECT_TRUE(config.root().find("checkpoint")->is_null());
}

// A cache snapshot another tool wrote (no file list of ours), read offline, is such a directory too.
TEST_F(CliGgufDirectory, ASnapshotAnotherToolWroteIsListedOffline) {
  TempDir cache;
  const std::string commit = "fedcba9876543210fedcba9876543210fedcba98";
  const fs::path repo = cache / "hub" / "models--org--tiny-GGUF";  // isolated_hub_env: HF_HUB_CACHE
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "snapshots");
  write_file(repo / "refs" / "main", commit);
  fs::copy(dir_.path(), repo / "snapshots" / commit);
  const std::string env = isolated_hub_env("http://127.0.0.1:9", cache.path()) + " HF_HUB_OFFLINE=1";
  CommandResult list = run_cli_env(env, "org/tiny-GGUF --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const json::Document d = json::Document::parse(list.out, "stdout");
  const std::vector<json::Value>& models = d.root().find("gguf_models")->items();
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[2].find("file")->as_string(), "tiny.Q8_0.gguf");
  EXPECT_EQ(models[2].find("parameters")->as_uint(), tiny_gguf_parameters(q8_));
  CommandResult ask = run_cli_env(env, "tensors org/tiny-GGUF");
  EXPECT_EQ(ask.exit_code, 2) << ask.err;
  // Named as the user named it, not by the snapshot's path in the cache.
  EXPECT_NE(ask.err.find("error: org/tiny-GGUF: holds 3 GGUF models"), std::string::npos) << ask.err;
  EXPECT_EQ(ask.err.find(cache.path().string()), std::string::npos) << ask.err;
  CommandResult none = run_cli_env(env, "tensors org/tiny-GGUF --file Q2_K");
  EXPECT_EQ(none.exit_code, 8) << none.err;
  EXPECT_NE(none.err.find("the repository holds tiny.Q4_0-"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace ma::test
