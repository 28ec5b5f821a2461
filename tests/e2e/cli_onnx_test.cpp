// ONNX models through the built binary: `graph` (console and JSON), the report, `tensors` and `stats` on a
// model written with ONNX's own protobuf classes, and the one-line refusals a user sees for bad ones.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "cli_test_support.h"
#include "core/json.h"
#include "onnx_test_models.h"
#include "test_support.h"

namespace ma::test {
namespace {

namespace fs = std::filesystem;

fs::path tiny_model_dir(const TempDir& tmp) {
  fs::create_directories(tmp / "tiny-onnx");
  write_onnx(tmp / "tiny-onnx" / "model.onnx", tiny_onnx_model());
  return tmp / "tiny-onnx";
}

TEST(CliOnnx, GraphJsonDescribesTheGraph) {
  TempDir tmp;
  CommandResult r = run_cli("graph '" + tiny_model_dir(tmp).string() + "' --json --edges");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "graph");
  const json::Value& g = d.root();
  EXPECT_EQ(g.find("nodes")->as_uint(), 1u);
  EXPECT_EQ(g.find("ops")->find("MatMul")->as_uint(), 1u);
  EXPECT_EQ(g.find("ir_version")->as_int(), 8);
  EXPECT_EQ(g.find("opsets")->items().at(0).find("domain")->as_string(), "ai.onnx");
  const json::Value& x = g.find("inputs")->items().at(0);
  EXPECT_EQ(x.find("name")->as_string(), "x");
  EXPECT_EQ(x.find("elem_type")->as_string(), "F32");
  EXPECT_EQ(x.find("shape")->items().at(0).as_string(), "batch");
  EXPECT_EQ(x.find("shape")->items().at(1).as_uint(), 3u);
  EXPECT_EQ(g.find("initializer_bytes")->as_uint(), 24u);
  const json::Value& p = g.find("precision")->items().at(0);
  EXPECT_EQ(p.find("dtype")->as_string(), "F32");
  EXPECT_EQ(p.find("elements")->as_uint(), 6u);
  EXPECT_EQ(g.find("layer_evidence")->as_string(), "node names");
  EXPECT_EQ(g.find("layers")->items().at(0).find("layer")->as_uint(), 0u);
  EXPECT_TRUE(g.find("edges")->items().empty());

  CommandResult console = run_cli("graph '" + (tiny_model_dir(tmp) / "model.onnx").string() + "'");
  ASSERT_EQ(console.exit_code, 0) << console.err;
  EXPECT_NE(console.out.find("MatMul"), std::string::npos) << console.out;
  EXPECT_NE(console.out.find("[batch, 3]"), std::string::npos) << console.out;
  // The title names the model as every report does (its directory and file), never the full local path.
  EXPECT_NE(console.out.find("ONNX graph: tiny-onnx/model.onnx"), std::string::npos) << console.out;
  EXPECT_EQ(console.out.find(tmp.path().string()), std::string::npos) << console.out;
  EXPECT_NE(console.out.find("weights F32"), std::string::npos) << console.out;
}

TEST(CliOnnx, TensorsReportAndStatsReadTheInitializers) {
  TempDir tmp;
  const fs::path dir = tiny_model_dir(tmp);
  CommandResult t = run_cli("tensors '" + dir.string() + "' --json");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  json::Document td = json::Document::parse(t.out, "tensors");
  const json::Value* ck = td.root().find("checkpoint");
  EXPECT_EQ(ck->find("format")->as_string(), "onnx");
  EXPECT_EQ(ck->find("parameters")->as_uint(), 6u);
  EXPECT_TRUE(ck->find("bytes_exact")->as_bool());
  const json::Value& w = tensor(td, "model.layers.0.mlp.up_proj.weight");
  EXPECT_EQ(w.find("layer")->as_uint(), 0u);
  EXPECT_EQ(w.find("role")->as_string(), "up");

  CommandResult rep = run_cli("'" + dir.string() + "' --json");
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(json::Document::parse(rep.out, "report").root().find("weights_format")->as_string(), "onnx");

  CommandResult s = run_cli("stats '" + dir.string() + "' --json");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  json::Document sd = json::Document::parse(s.out, "stats");
  const json::Value& st = tensor(sd, "model.layers.0.mlp.up_proj.weight");
  EXPECT_DOUBLE_EQ(st.find("mean")->as_double(), (1.0 - 2.0 + 0.5 + 4.0 - 0.25 + 3.0) / 6);
  EXPECT_DOUBLE_EQ(st.find("min")->as_double(), -2.0);
  EXPECT_DOUBLE_EQ(st.find("max")->as_double(), 4.0);
}

// INT4 weights (ONNX opset 21): two per byte, low nibble first, statistics of the integer values.
TEST(CliOnnx, StatsOfFourBitIntegerWeights) {
  TempDir tmp;
  onnx::ModelProto m = tiny_onnx_model();
  onnx::TensorProto& w = *m.mutable_graph()->mutable_initializer(0);
  w.set_data_type(22);                             // INT4
  w.set_raw_data(std::string("\x21\xf7\x08", 3));  // 1, 2, 7, -1, -8, 0
  write_onnx(tmp / "int4.onnx", m);
  CommandResult s = run_cli("stats '" + (tmp / "int4.onnx").string() + "' --json");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  json::Document d = json::Document::parse(s.out, "stats");
  const json::Value& st = tensor(d, "model.layers.0.mlp.up_proj.weight");
  EXPECT_DOUBLE_EQ(st.find("mean")->as_double(), 1.0 / 6);
  EXPECT_DOUBLE_EQ(st.find("min")->as_double(), -8.0);
  EXPECT_DOUBLE_EQ(st.find("max")->as_double(), 7.0);
  EXPECT_DOUBLE_EQ(st.find("zeros_fraction")->as_double(), 1.0 / 6);
}

TEST(CliOnnx, ExternalDataLeavingTheDirectoryIsOneLineExitFour) {
  TempDir tmp;
  fs::create_directories(tmp / "m");
  onnx::ModelProto m = tiny_onnx_model();
  make_weight_external(m, "../secret.bin", "0", "24", tmp / "secret.bin");
  write_onnx(tmp / "m" / "model.onnx", m);
  CommandResult r = run_cli("tensors '" + (tmp / "m").string() + "'");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_EQ(occurrences(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find("model.onnx: initializer 'model.layers.0.mlp.up_proj.weight'"), std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty());
}

// The external data look-ups run in the program while the ONNX module reads: their errors (a symbolic link
// out of the directory, a FIFO) come back as the program's one line and exit code, not as an exception
// unwinding through the module (which aborted).
TEST(CliOnnx, ExternalDataThatIsALinkOutOrAFifoIsOneLine) {
  TempDir tmp;
  fs::create_directories(tmp / "m");
  onnx::ModelProto m = tiny_onnx_model();
  make_weight_external(m, "w.bin", "0", "24", tmp / "outside.bin");
  write_onnx(tmp / "m" / "model.onnx", m);
  fs::create_symlink(tmp / "outside.bin", tmp / "m" / "w.bin");
  for (const char* command : {"tensors", "graph", "stats"}) {
    CommandResult r = run_cli(std::string(command) + " " + quoted(tmp / "m" / "model.onnx"));
    EXPECT_EQ(r.exit_code, 4) << command << ": " << r.err;
    EXPECT_EQ(occurrences(r.err, "\n"), 1u) << r.err;
    EXPECT_NE(r.err.find("external data 'w.bin': resolves outside the model's directory"), std::string::npos)
        << r.err;
  }
  fs::remove(tmp / "m" / "w.bin");
  ASSERT_EQ(::mkfifo((tmp / "m" / "w.bin").c_str(), 0600), 0);
  CommandResult r = run_cli_timeout(20, "tensors " + quoted(tmp / "m" / "model.onnx"));
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_NE(r.err.find("model.onnx: external data 'w.bin': is a FIFO, not a regular file"), std::string::npos)
      << r.err;
}

// A model in the Hugging Face cache: each file of the snapshot is a link into the repo's blobs/, the external
// data's too. That is the model's own layout, not a link out (it was refused with exit 4).
TEST(CliOnnx, ExternalDataInAHubCacheSnapshotIsRead) {
  TempDir tmp;
  const fs::path repo = tmp / "models--org--name";
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "snapshots" / "0123abcd");
  onnx::ModelProto m = tiny_onnx_model();
  make_weight_external(m, "model.onnx_data", "0", "24", repo / "blobs" / "b2");
  write_onnx(repo / "blobs" / "b1", m);
  fs::create_symlink("../../blobs/b1", repo / "snapshots" / "0123abcd" / "model.onnx");
  fs::create_symlink("../../blobs/b2", repo / "snapshots" / "0123abcd" / "model.onnx_data");
  CommandResult r = run_cli("tensors " + quoted(repo / "snapshots" / "0123abcd" / "model.onnx") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::Document::parse(r.out, "tensors").root().find("num_parameters")->as_uint(), 6u);
  // Blobs of another repo are not this model's.
  const fs::path other = tmp / "models--org--other" / "blobs";
  fs::create_directories(other);
  fs::rename(repo / "blobs" / "b2", other / "b2");
  fs::remove(repo / "snapshots" / "0123abcd" / "model.onnx_data");
  fs::create_symlink(other / "b2", repo / "snapshots" / "0123abcd" / "model.onnx_data");
  r = run_cli("tensors " + quoted(repo / "snapshots" / "0123abcd" / "model.onnx"));
  EXPECT_EQ(r.exit_code, 4) << r.err;
}

TEST(CliOnnx, GraphOfAnotherFormatIsAUsageError) {
  CommandResult r = run_cli("graph '" + example_dir().string() + "'");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not an ONNX model"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ma::test
