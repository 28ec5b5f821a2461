// A local directory of ONNX models answered as a Hub repository of them is: transformers.js's layout
// (config.json at the top, the exports in onnx/) gives config.json's model and names the exports for --file;
// without config.json the report lists them (path, transformers.js dtype, size) and the other commands ask
// which one; one model in a folder (what `download --file` writes) is read from its folder with the
// directory's config.json; --file reads one as the Hub's --file does; of several at the top model.onnx is
// the model, as on the Hub, and without one the user is asked. `graph`, which reads ONNX only, asks which of
// several and reads the only one beside other weights.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"
#include "onnx_test_models.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

// The tiny model (6 parameters) with its weight in `data` beside it.
void write_onnx_with_data(const fs::path& model, const std::string& data) {
  onnx::ModelProto m = tiny_onnx_model();
  make_weight_external(m, data, "0", "", model.parent_path() / data);
  write_onnx(model, m);
}

uint64_t size_of(const fs::path& p) {
  return static_cast<uint64_t>(fs::file_size(p));
}

// transformers.js's folder of exports, each with data named after it but the last (named as an exporter
// liked: only its graph says whose it is), and one more export in a second folder.
class CliOnnxDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_ / "onnx");
    fs::create_directories(dir_ / "cpu");
    write_onnx_with_data(dir_ / "onnx" / "model.onnx", "model.onnx_data");
    write_onnx_with_data(dir_ / "onnx" / "model_fp16.onnx", "model_fp16.onnx_data");
    write_onnx_with_data(dir_ / "onnx" / "model_int8.onnx", "int8_weights.bin");
    write_onnx(dir_ / "cpu" / "model.onnx", tiny_onnx_model());
  }
  std::string dir() const { return "'" + dir_.path().string() + "'"; }

  TempDir dir_;
};

TEST_F(CliOnnxDirectory, WithoutAConfigTheReportListsThemAndOtherCommandsAsk) {
  CommandResult r = run_cli(dir() + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  const std::vector<json::Value>& models = d.root().find("onnx_models")->items();
  ASSERT_EQ(models.size(), 4u);
  const fs::path onnx = dir_ / "onnx";
  struct Row {
    std::string path, dtype;
    uint64_t bytes;
  };
  const std::vector<Row> expected = {
      {"cpu/model.onnx", "", size_of(dir_ / "cpu" / "model.onnx")},
      {"onnx/model.onnx", "fp32", size_of(onnx / "model.onnx") + size_of(onnx / "model.onnx_data")},
      {"onnx/model_fp16.onnx", "fp16",
       size_of(onnx / "model_fp16.onnx") + size_of(onnx / "model_fp16.onnx_data")},
      // int8_weights.bin is named by the graph only: the files beside it cannot say it is this model's.
      {"onnx/model_int8.onnx", "int8", size_of(onnx / "model_int8.onnx")}};
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].path);
    EXPECT_EQ(models[i].find("path")->as_string(), expected[i].path);
    if (expected[i].dtype.empty()) {
      EXPECT_TRUE(models[i].find("dtype")->is_null());
    } else {
      EXPECT_EQ(models[i].find("dtype")->as_string(), expected[i].dtype);
    }
    EXPECT_EQ(models[i].find("size_bytes")->as_uint(), expected[i].bytes);
  }

  CommandResult console = run_cli(dir());
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find(": 4 ONNX models"), std::string::npos) << console.out;
  EXPECT_NE(console.out.find("analyse one with --file PATH"), std::string::npos) << console.out;

  // A command that needs one model asks which, naming them by path; nothing is written.
  CommandResult ask = run_cli("tensors " + dir() + " --json");
  EXPECT_EQ(ask.exit_code, 2) << ask.err;
  EXPECT_NE(ask.err.find("holds 4 ONNX models in its folders (cpu/model.onnx, onnx/model.onnx, "
                         "onnx/model_fp16.onnx, onnx/model_int8.onnx): name the file to analyse, or choose "
                         "one with --file PATH"),
            std::string::npos)
      << ask.err;
  EXPECT_EQ(ask.out, "");
  const fs::path html = dir_ / "report.html";
  CommandResult page = run_cli(dir() + " --html '" + html.string() + "'");
  EXPECT_EQ(page.exit_code, 2) << page.err;
  EXPECT_FALSE(fs::exists(html));
}

TEST_F(CliOnnxDirectory, FileReadsOneFromItsFolderWithTheDirectorysConfig) {
  write_file(dir_ / "config.json", kTinyLlamaConfig);
  CommandResult by_path = run_cli("tensors " + dir() + " --file onnx/model_fp16.onnx --json");
  ASSERT_EQ(by_path.exit_code, 0) << by_path.err;
  const json::Document d = json::Document::parse(by_path.out, "stdout");
  const json::Value* ck = d.root().find("checkpoint");
  EXPECT_EQ(ck->find("format")->as_string(), "onnx");
  EXPECT_EQ(ck->find("parameters")->as_uint(), kTinyOnnxWeights.size());
  EXPECT_EQ(ck->find("files")->as_uint(), 2u);  // the graph and its data
  // The top-level config.json describes it, as the Hub's --file reads it.
  EXPECT_EQ(d.root().find("architecture")->as_string(), "LlamaForCausalLM");

  CommandResult by_name = run_cli("tensors " + dir() + " --file model_int8.onnx --json");
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(json::Document::parse(by_name.out, "stdout").root().find("checkpoint")->find("files")->as_uint(),
            2u);
  CommandResult two = run_cli("tensors " + dir() + " --file model.onnx --json");
  EXPECT_EQ(two.exit_code, 2) << two.err;
  EXPECT_NE(two.err.find("'model.onnx' is the name of 2 ONNX models (cpu/model.onnx, onnx/model.onnx)"),
            std::string::npos)
      << two.err;
}

// Beside config.json, the exports are offered, not guessed: the model is the config's.
TEST_F(CliOnnxDirectory, BesideAConfigTheExportsAreNamedForFile) {
  write_file(dir_ / "config.json", kTinyLlamaConfig);
  for (const std::string command : {"tensors ", ""}) {
    SCOPED_TRACE(command);
    CommandResult r = run_cli(command + dir() + " --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json::Document d = json::Document::parse(r.out, "stdout");
    if (command.empty()) {
      EXPECT_TRUE(d.root().find("weights_format")->is_null());  // the report: no checkpoint read
    } else {
      EXPECT_EQ(d.root().find("origin")->as_string(), "template");
    }
    EXPECT_NE(
        r.err.find("the directory's ONNX models (cpu/model.onnx, onnx/model.onnx, onnx/model_fp16.onnx, "
                   "onnx/model_int8.onnx) are not read (the model is config.json's): name one with "
                   "--file to read it"),
        std::string::npos)
        << r.err;
  }
  // `graph` reads one graph: which is asked, in one line.
  CommandResult graph = run_cli("graph " + dir());
  EXPECT_EQ(graph.exit_code, 2) << graph.err;
  EXPECT_EQ(graph.err, "modelanalyzer: error: " + dir_.path().string() +
                           ": holds 4 ONNX models (cpu/model.onnx, onnx/model.onnx, onnx/model_fp16.onnx, "
                           "onnx/model_int8.onnx): name the one to read with --file PATH\n");
}

// What `download --file onnx/model.onnx` writes (config.json, onnx/genai_config.json, the model and its
// data) is that model: read from its folder, its genai_config.json beside it, the config at the top.
TEST(CliOnnxFolder, OneModelInAFolderIsTheModel) {
  TempDir dir;
  fs::create_directories(dir / "onnx");
  write_onnx_with_data(dir / "onnx" / "model.onnx", "model.onnx_data");
  // Without config.json, the genai_config.json beside the model describes it (its note shows it read).
  write_file(dir / "onnx" / "genai_config.json", R"({"model": {"decoder": {"num_hidden_layers": 7}}})");
  CommandResult graph_only = run_cli("tensors '" + dir.path().string() + "' --json");
  ASSERT_EQ(graph_only.exit_code, 0) << graph_only.err;
  EXPECT_NE(graph_only.err.find("genai_config.json says 7 layers"), std::string::npos) << graph_only.err;

  write_file(dir / "config.json", kTinyLlamaConfig);
  CommandResult r = run_cli("tensors '" + dir.path().string() + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("checkpoint")->find("format")->as_string(), "onnx");
  EXPECT_EQ(d.root().find("checkpoint")->find("parameters")->as_uint(), kTinyOnnxWeights.size());
  EXPECT_EQ(d.root().find("architecture")->as_string(), "LlamaForCausalLM");

  // Any other weights below it leave the directory a config alone.
  fs::create_directories(dir / "gguf");
  write_file(dir / "gguf" / "model.Q4_0.gguf", "GGUF");
  CommandResult mixed = run_cli("tensors '" + dir.path().string() + "' --json");
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_EQ(json::Document::parse(mixed.out, "stdout").root().find("origin")->as_string(), "template");
}

// Of several exports at the top, model.onnx is the model (optimum writes model_quantized.onnx beside it),
// the other named as not read; without one the user is asked, or shown them.
TEST(CliOnnxTopLevel, ModelOnnxIsTheModelElseTheUserChooses) {
  TempDir dir;
  write_onnx(dir / "model.onnx", tiny_onnx_model());
  write_onnx(dir / "model_quantized.onnx", tiny_onnx_model());
  CommandResult r = run_cli("tensors '" + dir.path().string() + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::Document::parse(r.out, "stdout").root().find("checkpoint")->find("format")->as_string(),
            "onnx");
  EXPECT_NE(r.err.find("model_quantized.onnx is not read"), std::string::npos) << r.err;

  fs::rename(dir / "model.onnx", dir / "decoder_model.onnx");
  CommandResult ask = run_cli("tensors '" + dir.path().string() + "' --json");
  EXPECT_EQ(ask.exit_code, 2) << ask.err;
  EXPECT_NE(ask.err.find("holds 2 ONNX models (decoder_model.onnx, model_quantized.onnx): name the file to "
                         "analyse, or choose one with --file NAME"),
            std::string::npos)
      << ask.err;
  CommandResult chosen = run_cli("tensors '" + dir.path().string() + "' --file decoder_model.onnx --json");
  EXPECT_EQ(chosen.exit_code, 0) << chosen.err;
  CommandResult list = run_cli("'" + dir.path().string() + "' --json");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const json::Document listed = json::Document::parse(list.out, "stdout");
  const std::vector<json::Value>& models = listed.root().find("onnx_models")->items();
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[1].find("path")->as_string(), "model_quantized.onnx");
  EXPECT_EQ(models[1].find("size_bytes")->as_uint(), size_of(dir / "model_quantized.onnx"));
}

// `graph` reads ONNX only: beside other weights (transformers.js's onnx/ beside model.safetensors, an export
// beside them at the top) the only .onnx file is its graph, as --file would name it; of several it asks
// which.
TEST(CliOnnxGraph, BesideOtherWeightsTheOnlyExportIsTheGraph) {
  TempDir dir;
  write_safetensors(dir / "model.safetensors", {{"w", DType::F32, {2, 2}, {}}});
  fs::create_directories(dir / "onnx");
  write_onnx_with_data(dir / "onnx" / "model.onnx", "model.onnx_data");
  const std::string d = "'" + dir.path().string() + "'";
  CommandResult graph = run_cli("graph " + d + " --json");
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  auto body = [](const std::string& json) { return json.substr(0, json.find(",\"analysis_timestamp\"")); };
  EXPECT_EQ(body(graph.out), body(run_cli("graph " + d + " --file onnx/model.onnx --json").out));
  EXPECT_EQ(json::Document::parse(graph.out, "stdout").root().find("initializer_bytes")->as_uint(),
            kTinyOnnxWeights.size() * sizeof(float));

  write_onnx(dir / "export.onnx", tiny_onnx_model());
  CommandResult two = run_cli("graph " + d);
  EXPECT_EQ(two.exit_code, 2) << two.err;
  EXPECT_NE(
      two.err.find("holds 2 ONNX models (export.onnx, onnx/model.onnx): name the one to read with --file "
                   "PATH"),
      std::string::npos)
      << two.err;
}

}  // namespace
}  // namespace ma::test
