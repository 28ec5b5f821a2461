// The Hub's own GGUF parser, @huggingface/gguf (tests/peer/gguf_params.mjs), against ours on GGUF files the
// test writes: the same tensor count, parameter count and architecture for dense, tied, MoE and quantized
// models. Skips visibly without node or the peer's node_modules (scripts/install-peer.sh installs them).
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_support.h"
#include "core/json.h"
#include "gguf_test_models.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

TEST(GgufPeer, ParameterCountsEqualTheHubParsers) {
  if (!have_tool("node")) GTEST_SKIP() << "node not installed";
  if (!fs::exists(test::peer_dir() / "node_modules" / "@huggingface" / "gguf"))
    GTEST_SKIP() << "peer not installed (bash scripts/install-peer.sh; needs node >= 18 and npm)";
  TempDir dir;
  std::vector<std::pair<std::string, TinyGguf>> models = {
      {"dense.gguf", {}},
      {"tied.gguf", {.tied = true}},
      {"q8.gguf", {.matrix_type = DType::Q8_0}},
      {"q4k.gguf", {.hidden = 256, .ffn = 512, .matrix_type = DType::Q4_K}},
      {"gemma.gguf", {.arch = "gemma3", .layers = 7}},
  };
  for (const auto& [name, m] : models) {
    SCOPED_TRACE(name);
    write_tiny_gguf(dir / name, m);
    const CommandResult peer =
        run_shell("node " + quoted(test::peer_dir() / "gguf_params.mjs") + " " + quoted(dir / name));
    ASSERT_EQ(peer.exit_code, 0) << peer.err;
    const CommandResult ours = run_cli("tensors " + quoted(dir / name) + " --json");
    ASSERT_EQ(ours.exit_code, 0) << ours.err;
    const json::Document p = json::Document::parse(peer.out, "peer"),
                         o = json::Document::parse(ours.out, "ours");
    EXPECT_EQ(o.root().find("num_parameters")->as_uint(), p.root().find("parameterCount")->as_uint());
    EXPECT_EQ(o.root().find("checkpoint")->find("tensors")->as_uint(), p.root().find("tensors")->as_uint());
    EXPECT_EQ(std::string(p.root().find("architecture")->as_string()), m.arch);
    EXPECT_EQ(o.root().find("num_parameters")->as_uint(), tiny_gguf_parameters(m));
  }
}

}  // namespace
}  // namespace ma::test
