// PyTorch checkpoints on the Hub, end to end against the fake Hub (nginx on loopback): a repository whose
// weights are pytorch_model.bin files (an index's shards, or one file) is analysed from each file's two ends
// (data.pkl at its head, the zip's directory at its tail), fetched by range requests and cached, never from
// the storages between them; what it reads equals what the same files give on disk; and a pickle that calls a
// function is refused by the same restricted unpickler, naming the global, with nothing run.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli_test_support.h"
#include "core/json.h"
#include "fake_hub.h"
#include "fake_hub_test_support.h"
#include "torch_zip_writer.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

// Two 1 MiB storages between a small pickle and a small directory.
const std::vector<std::pair<std::string, uint32_t>> kTensors = {
    {"model.embed_tokens.weight", 1 << 18}, {"lm_head.weight", 1 << 18}, {"model.norm.weight", 64}};

// A pickle that would run `touch MARKER` when unpickled: os.system, as torch.save never writes it.
std::string system_call_zip(const fs::path& marker) {
  const std::string command = "touch '" + marker.string() + "'";
  std::string pickle =
      "\x80\x02"
      "cposix\nsystem\nX";
  for (int i = 0; i < 4; ++i) pickle += static_cast<char>((command.size() >> (8 * i)) & 0xff);
  pickle += command + "\x85R.";
  return stored_zip({{"archive/data.pkl", pickle}, {"archive/data/0", std::string(1 << 20, 'x')}});
}

bool holds_torch_model(const fs::path& dir) {
  bool torch = false;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".safetensors") return false;
    torch = torch || ext == ".bin" || ext == ".pt";
  }
  return torch && fs::exists(dir / "config.json");
}

class HubTorch : public SharedFakeHubTest {
 protected:
  static void SetUpTestSuite() {
    if (!create_shared_hub("")) return;
    hub_->add_repo(fake_repo("ex/torch-bin", "normal",
                             {fake_file("pytorch_model.bin", float_torch_zip(kTensors, 'w'), true)}));
    hub_->add_repo(fake_repo("ex/torch-evil", "normal",
                             {fake_file("pytorch_model.bin", system_call_zip(marker()), true)}));
    if (auto data = shared_data())
      for (const auto& e : fs::directory_iterator(*data / "fixtures"))
        if (e.is_directory() && holds_torch_model(e.path()))
          hub_->add_repo(repo_from_directory("fx/" + e.path().filename().string(), e.path()));
    hub_->start();
  }
  static fs::path marker() { return work_->path() / "unpickled-and-ran"; }

  CommandResult run(const std::string& args, const std::string& env = "") {
    return run_cli_env(isolated_hub_env(hub_->endpoint(), cache_.path()) + " " + env, args);
  }

  TempDir cache_;
};

TEST_F(HubTorch, AFileIsReadFromItsTwoEndsThenFromTheCache) {
  const uint64_t file_size = float_torch_zip(kTensors, 'w').size();
  CommandResult r = run("tensors ex/torch-bin --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("origin")->as_string(), "headers");
  EXPECT_EQ(d.root().find("checkpoint")->find("format")->as_string(), "pytorch zip");
  EXPECT_EQ(d.root().find("checkpoint")->find("parameters")->as_uint(), 2u * (1 << 18) + 64);
  const std::vector<json::Value>& tensors = d.root().find("tensors")->items();
  ASSERT_EQ(tensors.size(), kTensors.size());
  for (const json::Value& t : tensors) {
    const std::string name(t.find("name")->as_string());
    SCOPED_TRACE(name);
    const auto want =
        std::find_if(kTensors.begin(), kTensors.end(), [&](const auto& k) { return k.first == name; });
    ASSERT_NE(want, kTensors.end());
    ASSERT_EQ(t.find("shape")->items().size(), 1u);
    EXPECT_EQ(t.find("shape")->items()[0].as_uint(), want->second);
    EXPECT_EQ(t.find("dtype")->as_string(), "f32");
  }
  // The head (data.pkl) and the tail (the directory), each one ranged request; the 2 MiB of storages
  // between them never cross the network.
  const std::vector<LogEntry> log = cdn_log();
  EXPECT_EQ(log.size(), 2u);
  uint64_t sent = 0;
  for (const LogEntry& e : log) {
    EXPECT_EQ(e.status, 206) << e.range;
    EXPECT_FALSE(e.range.empty());
    sent += e.bytes_sent;
  }
  EXPECT_LT(sent, file_size / 4) << "of " << file_size;

  // The ends are cached: the next run reads them there, and so does an offline one.
  hub_->clear_log();
  CommandResult again = run("tensors ex/torch-bin --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  hub_->wait_for_log(1);
  EXPECT_TRUE(cdn_log().empty());
  CommandResult offline = run("tensors ex/torch-bin --json", "HF_HUB_OFFLINE=1");
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_EQ(json::Document::parse(offline.out, "offline").root().find("tensors")->items().size(),
            kTensors.size());
}

TEST_F(HubTorch, APickleThatCallsAFunctionIsRefusedAndNothingRuns) {
  CommandResult r = run("tensors ex/torch-evil --json");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("posix.system"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(fs::exists(marker()));
}

// torch's own files (an index's two shards, a legacy file, a training checkpoint, a file beside a second
// checkpoint) give from the Hub what they give on disk, field for field.
TEST_F(HubTorch, TheFixturesAnalyseAsTheyDoLocally) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  size_t compared = 0;
  for (const auto& e : fs::directory_iterator(*data / "fixtures")) {
    if (!e.is_directory() || !holds_torch_model(e.path())) continue;
    const std::string name = e.path().filename().string();
    SCOPED_TRACE(name);
    CommandResult local = run_cli("tensors '" + e.path().string() + "' --json");
    CommandResult remote = run("tensors fx/" + name + " --json");
    ASSERT_EQ(remote.exit_code, local.exit_code) << remote.err;
    ASSERT_EQ(remote.exit_code, 0) << remote.err;
    EXPECT_EQ(tensors_json_body(remote.out), tensors_json_body(local.out));
    EXPECT_NE(tensors_json_body(remote.out).find("\"origin\":\"headers\""), std::string::npos);
    ++compared;
  }
  EXPECT_GE(compared, 4u);
}

}  // namespace
}  // namespace ma::test
