// Peer check (issue: Hub client): the official JavaScript client, @huggingface/hub's
// parseSafetensorsMetadata, reads the same mock Hub, and its per-dtype parameter counts must equal ours for
// every safetensors model served. Its definition is "every tensor on disk per dtype, except scalars and
// E8M0, and except quantization scales when config.json declares a quantization_config"; ours is computed
// in that definition from `modelanalyzer tensors --json` of the same repo over the same Hub.
// Skips visibly without node or the peer's node_modules (scripts/install-peer.sh installs them).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "cli_test_support.h"
#include "core/json.h"
#include "fake_hub.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Our per-dtype counts in the peer's definition, from the tensors export.
std::map<std::string, uint64_t> ours(const std::string& tensors_json, bool quantized) {
  json::Document doc = json::Document::parse(tensors_json, "tensors --json");
  std::map<std::string, uint64_t> counts;
  for (const json::Value& t : doc.root().find("tensors")->items()) {
    if (!t.find("stored")->as_bool()) continue;
    const std::string dtype = upper(std::string(t.find("dtype")->as_string()));
    const auto& dims = t.find("shape")->items();
    if (dims.empty() || dtype == "F8_E8M0") continue;
    if (quantized && t.find("kind")->as_string() == "quantization-scale") continue;
    uint64_t n = 1;
    for (const json::Value& d : dims) n *= *d.as_uint();
    counts[dtype] += n;
  }
  return counts;
}

std::map<std::string, uint64_t> peers(const std::string& line) {
  json::Document doc = json::Document::parse(line, "peer output");
  std::map<std::string, uint64_t> counts;
  for (const json::Member& m : doc.root().find("parameterCount")->members())
    if (auto n = m.value.as_uint(); n && *n > 0) counts[std::string(m.key)] = *n;
  return counts;
}

TEST(HubPeer, OfficialJsClientCountsEqualOurs) {
  if (!FakeHub::available()) GTEST_SKIP() << "nginx not installed";
  if (!fs::exists(test::peer_dir() / "node_modules" / "@huggingface" / "hub"))
    GTEST_SKIP() << "peer not installed (bash scripts/install-peer.sh; needs node >= 18 and npm)";
  auto data = shared_data();
  TempDir work;
  FakeHub hub(work / "hub", "hf_unused");
  std::vector<std::pair<std::string, fs::path>> repos = {{"ex/tiny-llama", example_dir()}};
  if (data)
    for (const auto& e : fs::directory_iterator(*data / "fixtures"))
      if (e.is_directory() && fs::exists(e.path() / "config.json"))
        for (const auto& f : fs::directory_iterator(e.path()))
          if (f.path().filename() == "model.safetensors" ||
              f.path().filename() == "model.safetensors.index.json") {
            repos.push_back({"fx/" + e.path().filename().string(), e.path()});
            break;
          }
  for (const auto& [id, dir] : repos) hub.add_repo(repo_from_directory(id, dir));
  hub.start();
  for (const auto& [id, dir] : repos) {
    const CommandResult node = run_shell("node " + quoted(test::peer_dir() / "safetensors_params.mjs") + " " +
                                         hub.endpoint() + " " + id);
    const std::string& peer = node.out;
    ASSERT_EQ(node.exit_code, 0) << id << ": " << peer << node.err;
    const CommandResult tensors =
        run_cli_env("-u HF_TOKEN HF_ENDPOINT=" + hub.endpoint() + " HF_HUB_CACHE=" + quoted(work / "cache"),
                    "tensors " + id + " --json");
    const std::string& mine = tensors.out;
    ASSERT_EQ(tensors.exit_code, 0) << id;
    const bool quantized =
        read_file(dir / "config.json").find("\"quantization_config\"") != std::string::npos;
    EXPECT_EQ(ours(mine, quantized), peers(peer)) << id;
  }
  if (!data) GTEST_SKIP() << "compared the built-in example only: ../shared/data fixtures not present";
  EXPECT_GE(repos.size(), 20u);
}

}  // namespace
}  // namespace ma::test
