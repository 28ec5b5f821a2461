// ONNX models on the Hub, end to end against the fake Hub (nginx on loopback): a repository whose weights are
// an ONNX export is analysed from its .onnx file, fetched whole (the graph: the weights are in external data
// files, sized by the listing and never fetched) and cached; what it reads equals what the same files give on
// disk; external data the repository does not hold is named; and an .onnx file too large to be a graph alone
// (its initializers inline) is left unread, with a note, instead of being downloaded.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "fake_hub.h"
#include "fake_hub_test_support.h"
#include "onnx_test_models.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const char* kLlamaConfig =
    R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
        "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
        "vocab_size": 256, "max_position_embeddings": 512, "torch_dtype": "float32"})";

class HubOnnx : public SharedFakeHubTest {
 protected:
  static void SetUpTestSuite() {
    if (!create_shared_hub("")) return;
    // The tiny model with its weight in model.onnx.data, written on disk once: the local twin the Hub's
    // answers are compared with.
    onnx::ModelProto m = tiny_onnx_model();
    make_weight_external(m, "model.onnx.data", "16", "", local_dir() / "model.onnx.data");
    write_onnx(local_dir() / "model.onnx", m);
    const std::string graph = file_bytes(local_dir() / "model.onnx");
    const std::string data = file_bytes(local_dir() / "model.onnx.data");
    hub_->add_repo(
        fake_repo("ex/onnx-external", "normal",
                  {fake_file("model.onnx", graph, true), fake_file("model.onnx.data", data, true)}));
    hub_->add_repo(fake_repo("ex/onnx-no-data", "normal", {fake_file("model.onnx", graph, true)}));
    // Past the cap by one byte: never fetched, so its bytes need not be a model.
    hub_->add_repo(fake_repo("ex/onnx-inline", "normal",
                             {fake_file("config.json", kLlamaConfig),
                              fake_file("model.onnx", std::string((64u << 20) + 1, 'o'), true)}));
    if (auto data_dir = shared_data(); data_dir && fs::is_directory(*data_dir / "fixtures/tiny-gpt2-onnx"))
      hub_->add_repo(repo_from_directory("fx/tiny-gpt2-onnx", *data_dir / "fixtures/tiny-gpt2-onnx"));
    hub_->start();
  }
  static fs::path local_dir() {
    fs::create_directories(work_->path() / "local");
    return work_->path() / "local";
  }

  CommandResult run(const std::string& args, const std::string& env = "") {
    return run_cli_env(isolated_hub_env(hub_->endpoint(), cache_.path()) + " " + env, args);
  }

  TempDir cache_;
};

TEST_F(HubOnnx, TheGraphIsFetchedWholeItsExternalDataNeverThenFromTheCache) {
  CommandResult local = run_cli("tensors '" + local_dir().string() + "' --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  CommandResult r = run("tensors ex/onnx-external --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(tensors_json_body(r.out), tensors_json_body(local.out));
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("origin")->as_string(), "headers");
  const json::Value& ck = *d.root().find("checkpoint");
  EXPECT_EQ(ck.find("format")->as_string(), "onnx");
  EXPECT_EQ(ck.find("parameters")->as_uint(), kTinyOnnxWeights.size());
  // The external data file counts with the size the listing gives (16 bytes of offset, then 24).
  EXPECT_EQ(ck.find("files")->as_uint(), 2u);
  EXPECT_EQ(ck.find("file_bytes")->as_uint(), fs::file_size(local_dir() / "model.onnx") + 16u + 24u);

  // One request, for the whole graph (the data file is 40 bytes); none for the data.
  const std::vector<LogEntry> log = cdn_log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].status, 206);
  EXPECT_EQ(log[0].range, "bytes=0-" + std::to_string(fs::file_size(local_dir() / "model.onnx") - 1));

  // Cached: the next run fetches nothing, and an offline one reads the cached graph.
  hub_->clear_log();
  CommandResult again = run("tensors ex/onnx-external --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  hub_->wait_for_log(1);
  EXPECT_TRUE(cdn_log().empty());
  CommandResult offline = run("tensors ex/onnx-external --json", "HF_HUB_OFFLINE=1");
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(tensors_json_body(offline.out), tensors_json_body(local.out));

  // The values are not on this machine: `stats` says to download them.
  CommandResult stats = run("stats ex/onnx-external");
  EXPECT_EQ(stats.exit_code, 8) << stats.err;
  EXPECT_NE(stats.err.find("modelanalyzer download ex/onnx-external"), std::string::npos) << stats.err;
}

TEST_F(HubOnnx, ExternalDataTheRepositoryDoesNotHoldIsNamed) {
  CommandResult r = run("tensors ex/onnx-no-data --json");
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("ex/onnx-no-data/model.onnx"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("external data file 'model.onnx.data' is missing"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(HubOnnx, AFileTooLargeToBeAGraphAloneIsLeftUnreadAndSaidSo) {
  CommandResult r = run("tensors ex/onnx-inline --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("model.onnx is not read: 67,108,865 bytes"), std::string::npos) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("origin")->as_string(), "template");
  EXPECT_TRUE(cdn_log().empty());
}

// The export the reference libraries wrote (a graph and its model.onnx.data) gives from the Hub what it gives
// on disk, field for field.
TEST_F(HubOnnx, TheFixtureAnalysesAsItDoesLocally) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const fs::path dir = *data / "fixtures/tiny-gpt2-onnx";
  CommandResult local = run_cli("tensors '" + dir.string() + "' --json");
  CommandResult remote = run("tensors fx/tiny-gpt2-onnx --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  EXPECT_EQ(tensors_json_body(remote.out), tensors_json_body(local.out));
  EXPECT_NE(tensors_json_body(remote.out).find("\"origin\":\"headers\""), std::string::npos);
  const std::vector<LogEntry> log = cdn_log();
  ASSERT_EQ(log.size(), 1u);  // the graph, whole; never the 0.5 MB of model.onnx.data
  EXPECT_EQ(log[0].range, "bytes=0-" + std::to_string(fs::file_size(dir / "model.onnx") - 1));
}

}  // namespace
}  // namespace ma::test
