// End-to-end: the built binary on the built-in example and on bad inputs — outputs, exit codes, one-line
// errors, no partial output files.
#include <gtest/gtest.h>

#include <map>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

using test::example_dir;
using test::quoted;

TEST(CliTensors, JsonOnTheBuiltInExample) {
  auto r = test::run_cli("tensors " + quoted(example_dir()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  const json::Value& root = doc.root();
  // Llama, hidden 64, 2 layers, GQA 4/2 heads of 16, MLP 160, vocab 512, untied:
  // 2 x 512*64 (embed, lm_head) + 2 x (64*64*2 + 32*64*2 + 3*64*160 + 2*64) + 64 (final norm).
  EXPECT_EQ(*root.find("num_parameters")->as_uint(),
            2u * 512 * 64 + 2u * (64 * 64 * 2 + 32 * 64 * 2 + 3 * 64 * 160 + 2 * 64) + 64);
  EXPECT_EQ(root.find("origin")->as_string(), "headers");
  EXPECT_EQ(root.find("architecture")->as_string(), "LlamaForCausalLM");
  const json::Value& tensors = *root.find("tensors");
  ASSERT_EQ(tensors.items().size(), 21u);
  const json::Value& q = tensors.items()[1];
  EXPECT_EQ(q.find("name")->as_string(), "model.layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(*q.find("layer")->as_uint(), 0u);
  EXPECT_EQ(q.find("block")->as_string(), "attention");
  EXPECT_EQ(q.find("role")->as_string(), "q");
  EXPECT_EQ(q.find("kind")->as_string(), "parameter");
  EXPECT_EQ(q.find("dtype")->as_string(), "bf16");
  EXPECT_EQ(*q.find("bytes")->as_uint(), 64u * 64 * 2);
  EXPECT_TRUE(q.find("tied_to")->is_null());
  const json::Value& ck = *root.find("checkpoint");
  EXPECT_EQ(*ck.find("tensors")->as_uint(), 21u);
  EXPECT_EQ(*ck.find("bytes")->as_uint(), 2u * *root.find("num_parameters")->as_uint());
  const json::Value& layers = *root.find("layers");
  ASSERT_EQ(layers.items().size(), 2u);
  EXPECT_EQ(layers.items()[0].find("type")->as_string(), "attention+dense");
  EXPECT_EQ(layers.items()[0].find("attention")->as_string(), "gqa");
}

// Enough rows that they are formatted in blocks on several threads (where the machine has them): every row
// is there once, in order, and the blocks join into one valid JSON array.
TEST(CliTensors, JsonOfManyTensorsKeepsEveryRowInOrder) {
  test::TempDir tmp;
  constexpr size_t kTensors = 9000;
  std::vector<TensorToWrite> tensors;
  for (size_t i = 0; i < kTensors; ++i)
    tensors.push_back({"w." + std::to_string(i), DType::F32, {1}, std::string(4, '\0')});
  write_safetensors(tmp / "model.safetensors", tensors);
  auto r = test::run_cli("tensors " + quoted(tmp.path()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  const auto& rows = doc.root().find("tensors")->items();
  ASSERT_EQ(rows.size(), kTensors);
  for (size_t i = 0; i < kTensors; ++i)
    ASSERT_EQ(rows[i].find("name")->as_string(), "w." + std::to_string(i));
  EXPECT_EQ(test::occurrences(r.out, "\n,{\"name\""), kTensors - 1);
}

TEST(CliTensors, CsvInSeed003Format) {
  test::TempDir tmp;
  auto r = test::run_cli("tensors " + quoted(example_dir()) + " --csv " + quoted(tmp / "t.csv") + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string csv = test::read_file(tmp / "t.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "kind,name,shape,dtype,parameters,bytes,layer,block,role,tensor_kind,tied_to");
  EXPECT_NE(
      csv.find("\nparam,model.embed_tokens.weight,\"(512, 64)\",torch.bfloat16,32768,65536,,embedding,"),
      std::string::npos)
      << csv.substr(0, 300);
  EXPECT_NE(csv.find("\nparam,model.norm.weight,\"(64,)\",torch.bfloat16,64,128,,norm,"), std::string::npos);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 22);
}

TEST(CliTensors, DryRunFromABareConfig) {
  test::TempDir tmp;
  fs::copy_file(example_dir() / "config.json", tmp / "config.json");
  auto r = test::run_cli("tensors " + quoted(tmp.path()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(doc.root().find("origin")->as_string(), "template");
  EXPECT_TRUE(doc.root().find("checkpoint")->is_null());
  EXPECT_EQ(doc.root().find("tensors")->items().size(), 21u);
  // Naming the config file itself is the same dry run.
  auto r2 = test::run_cli("tensors " + quoted(tmp / "config.json") + " --json");
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  EXPECT_EQ(json::Document::parse(r2.out, "stdout").root().find("tensors")->items().size(), 21u);
}

TEST(CliTensors, TiedEmbeddingsCountedOnce) {
  test::TempDir tmp;
  std::string cfg = test::read_file(example_dir() / "config.json");
  cfg.replace(cfg.find("\"tie_word_embeddings\": false"), 28, "\"tie_word_embeddings\": true");
  test::write_file(tmp / "config.json", cfg);
  auto r = test::run_cli("tensors " + quoted(tmp.path()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(*doc.root().find("num_parameters")->as_uint(), 151872u - 512 * 64);
  const json::Value& last = doc.root().find("tensors")->items().back();
  EXPECT_EQ(last.find("name")->as_string(), "lm_head.weight");
  EXPECT_EQ(last.find("tied_to")->as_string(), "model.embed_tokens.weight");
  EXPECT_EQ(*last.find("parameters")->as_uint(), 0u);
  EXPECT_FALSE(last.find("stored")->as_bool());
}

TEST(CliTensors, HeaderTemplateDifferencesAreWarnings) {
  test::TempDir tmp;
  fs::copy_file(example_dir() / "model.safetensors", tmp / "model.safetensors");
  std::string cfg = test::read_file(example_dir() / "config.json");
  cfg.replace(cfg.find("\"intermediate_size\": 160"), 24, "\"intermediate_size\": 128");
  test::write_file(tmp / "config.json", cfg);
  auto r = test::run_cli("tensors " + quoted(tmp.path()) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One line for all six MLP weights (two layers of gate, up, down), naming the first and both counts.
  EXPECT_EQ(test::occurrences(r.err, "warning:"), 1u) << r.err;
  EXPECT_NE(r.err.find("contradicts config.json in 6 tensor shapes ('model.layers.0.mlp.gate_proj.weight' is "
                       "[160, 64] where the config implies [128, 64], and 5 more)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("parameters 139,584 as configured, 151,872 as stored"), std::string::npos) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  EXPECT_GE(doc.root().find("warnings")->items().size(), 1u);
}

TEST(CliTensors, ErrorsAreOneLineWithDocumentedExitCodes) {
  test::TempDir tmp;
  test::write_file(tmp / "bad.safetensors", std::string("\x10\0\0\0\0\0\0\0{\"a\":1}        ", 24));
  auto r = test::run_cli("tensors " + quoted(tmp / "bad.safetensors") + " --csv " + quoted(tmp / "out.csv"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("bad.safetensors"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp / "out.csv")) << "no partial output on failure";

  EXPECT_EQ(test::run_cli("tensors " + quoted(tmp / "missing")).exit_code, 8);
  EXPECT_EQ(test::run_cli("tensors --frobnicate x").exit_code, 2);
  EXPECT_EQ(test::run_cli("tensors").exit_code, 2);

  test::write_file(tmp / "config.json", R"({"model_type": "frobnitz", "hidden_size": 8})");
  auto u = test::run_cli("tensors " + quoted(tmp / "config.json"));
  EXPECT_EQ(u.exit_code, 10);
  EXPECT_NE(u.err.find("unsupported architecture: frobnitz"), std::string::npos) << u.err;

  test::write_file(tmp / "config.json", R"({"model_type": "llama", "num_attention_heads": 0})");
  auto z = test::run_cli("tensors " + quoted(tmp / "config.json"));
  EXPECT_EQ(z.exit_code, 3);
  EXPECT_NE(z.err.find("num_attention_heads"), std::string::npos) << z.err;

  test::write_file(tmp / "config.json", R"({"model_type": "llama", "hidden_size": "4096"})");
  EXPECT_EQ(test::run_cli("tensors " + quoted(tmp / "config.json")).exit_code, 3);
}

TEST(CliSummary, MainJobOnTheExample) {
  auto r = test::run_cli(quoted(example_dir()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("151,872, exact"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 x attention+dense"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ma

namespace ma {
namespace {

// Seed 000's question about NVIDIA Nemotron-3-Nano-30B-A3B: which layer is which type, how many of each.
TEST(CliTensors, HybridLayerMapOfNemotronNano) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  auto dir = *data / "hf-configs" / "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16";
  auto r = test::run_cli("tensors '" + dir.string() + "' --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::Document::parse(r.out, "stdout");
  std::map<std::string, std::vector<uint64_t>> by_type;
  for (const json::Value& g : doc.root().find("layer_counts")->find("by_type")->items()) {
    auto& v = by_type[std::string(g.find("type")->as_string())];
    for (const json::Value& i : g.find("indices")->items()) v.push_back(*i.as_uint());
    EXPECT_EQ(*g.find("count")->as_uint(), v.size());
  }
  ASSERT_EQ(by_type.size(), 3u);
  EXPECT_EQ(by_type["mamba2"].size(), 23u);
  EXPECT_EQ(by_type["moe"].size(), 23u);
  EXPECT_EQ(by_type["attention"].size(), 6u);
  // hybrid_override_pattern "MEMEM*EMEMEM*E...": layer 5 is the first attention layer, 0 Mamba-2, 1 MoE.
  EXPECT_EQ(by_type["attention"].front(), 5u);
  EXPECT_EQ(by_type["mamba2"].front(), 0u);
  EXPECT_EQ(by_type["moe"].front(), 1u);
  const json::Value& p = *doc.root().find("parameters");
  EXPECT_EQ(*p.find("total")->as_uint(), 31577937344u);  // transformers' num_parameters for this config
  // Routed experts: 23 MoE layers x 128 experts x (up [1856, 2688] + down [2688, 1856]); top-6 of 128 active.
  const uint64_t routed = 23ull * 128 * 2 * 1856 * 2688;
  EXPECT_EQ(*p.find("routed_experts")->as_uint(), routed);
  EXPECT_EQ(*p.find("active")->as_uint(), 31577937344u - routed + routed / 128 * 6);
}

}  // namespace
}  // namespace ma

namespace ma {
namespace {

// An ONNX file is read now: a broken one is one line naming it and the rule, exit 3, never a dry run from the
// config beside it.
TEST(CliTensors, BrokenOnnxIsOneError) {
  test::TempDir tmp;
  std::filesystem::copy_file(test::example_dir() / "config.json", tmp / "config.json");
  test::write_file(tmp / "model.onnx", "not really");
  auto r = test::run_cli("tensors '" + tmp.path().string() + "' --json");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(test::occurrences(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find("model.onnx: ModelProto: not a valid ONNX protobuf"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// A GGUF file is read now: a broken one is one line naming it and the field, exit 3.
TEST(CliTensors, BrokenGgufIsOneError) {
  test::TempDir tmp;
  test::write_file(tmp / "model.gguf", "GGUF not really");
  auto r = test::run_cli("tensors '" + tmp.path().string() + "' --json");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(test::occurrences(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find("model.gguf: version: holds"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// A PyTorch checkpoint is read now: a broken one is one line naming it, exit 3, never a dry run in disguise.
TEST(CliTensors, BrokenPytorchCheckpointIsOneError) {
  test::TempDir tmp;
  std::filesystem::copy_file(test::example_dir() / "config.json", tmp / "config.json");
  test::write_file(tmp / "pytorch_model.bin", "PK\x03\x04 not really a zip");
  auto r = test::run_cli("tensors '" + tmp.path().string() + "' --json");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(test::occurrences(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find("pytorch_model.bin"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
}  // namespace ma
