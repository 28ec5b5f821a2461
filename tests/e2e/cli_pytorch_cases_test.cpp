// PyTorch checkpoints that torch.save itself writes (tests/support/write_torch_cases.py) and that were once
// read wrong: the model of a training checkpoint that saves its loss beside it, a state dict saved under two
// keys, a legacy file whose pickle crosses the first read's 1 MiB, tied weights in the stats summary, element
// counts past 2^64, a lone view with gaps and memoized long keys; and a directory whose PyTorch index hides
// its safetensors.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli_test_support.h"
#include "core/dtype.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"
#include "test_support.h"
#include "torch_cases.h"

namespace ma {
namespace {

namespace fs = std::filesystem;

// CASE.pt as torch.save writes it (support/torch_cases.h), or the test skips without torch.
#define TORCH_CASE(var, name)                                 \
  const std::optional<fs::path> var = test::torch_case(name); \
  if (!var) GTEST_SKIP() << "Debian's python3-torch is not installed (scripts/install-deps.sh installs it)"

// The JSON a command prints for `model` (which must succeed).
json::Document json_of(const std::string& command, const fs::path& model) {
  const auto r = test::run_cli(command + " " + test::quoted(model) + " --json --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::Document::parse(r.out, "stdout");
}
json::Document listed_tensors(const fs::path& model) {
  return json_of("tensors", model);
}

// PyTorch's own "saving a general checkpoint" recipe keeps the loss, a tensor, beside the state dicts: the
// model is still model_state_dict's 15 parameters (a 4x3 Linear), not the file's every tensor (the
// optimizer's moments and step counts, and the loss: 29 more), which the note names.
TEST(CliPytorchCases, ALossSavedBesideTheStateDictsIsNotTheModel) {
  TORCH_CASE(file, "tutorial");
  const auto r = test::run_cli("tensors " + test::quoted(*file) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), 15u);
  EXPECT_NE(r.err.find("tensors outside its state dict 'model_state_dict'"), std::string::npos) << r.err;
}

// One state dict object saved under two keys is one container in the pickle (torch.save memoizes it): its
// tensors are found under the state dict's path, not only under the first path the walk met ("swa.averaged").
TEST(CliPytorchCases, AStateDictSavedUnderTwoKeysIsFoundUnderTheStateDicts) {
  TORCH_CASE(file, "shared-dict");
  const json::Document d = listed_tensors(*file);
  EXPECT_EQ(d.root().find("num_parameters")->as_uint(), 15u);
  EXPECT_EQ(d.root().find("tensors")->items().size(), 2u);
}

// A legacy file's pickles are read from a 1 MiB prefix first: a GLOBAL line cut by that prefix is a reason to
// read more, not a malformed file (torch.load reads all 1,101 tensors).
TEST(CliPytorchCases, ALegacyPickleCrossingTheFirstReadIsReadWhole) {
  TORCH_CASE(file, "legacy-boundary");
  const json::Document d = listed_tensors(*file);
  EXPECT_EQ(d.root().find("checkpoint")->find("format")->as_string(), "pytorch legacy");
  EXPECT_EQ(d.root().find("checkpoint")->find("tensors")->as_uint(), 1101u);
}

// The stats summary counts a tied tensor's parameters and its storage's bytes once, as tensors and the report
// do: 12 + 4 parameters and 64 bytes, though three tensors hold 28 values.
TEST(CliPytorchCases, StatsSummaryCountsTiedWeightsOnce) {
  TORCH_CASE(file, "tied");
  const json::Document d = json_of("stats", *file);
  const json::Value& summary = *d.root().find("summary");
  EXPECT_EQ(summary.find("tensors")->as_uint(), 3u);
  EXPECT_EQ(summary.find("total_parameters")->as_uint(), 16u);
  EXPECT_EQ(summary.find("bytes")->as_uint(), 64u);
  EXPECT_EQ(listed_tensors(*file).root().find("num_parameters")->as_uint(), 16u);
}

// Five expanded views of 2^62 elements each (4 bytes of storage apiece) add up past 2^64: a resource limit
// (exit 5) naming the rule, where the sum wrapped to 2^62 parameters.
TEST(CliPytorchCases, ElementsAddingUpPast64BitsAreALimit) {
  TORCH_CASE(file, "expanded");
  const auto r = test::run_cli("tensors " + test::quoted(*file) + " --json");
  EXPECT_EQ(r.exit_code, 5) << r.err << r.out;
  EXPECT_NE(r.err.find("overflow 64 bits"), std::string::npos) << r.err;
  EXPECT_EQ(test::occurrences(r.err, "\n"), 1u) << r.err;
}

// A checkpoint whose only tensor is a view with gaps holds a tensor, whose values stats does not read: exit
// 10 saying so, where it said "the checkpoint holds no tensor" (exit 8) after warning that it left it out.
TEST(CliPytorchCases, OnlyUnreadableViewsAreUnsupportedNotMissing) {
  TORCH_CASE(file, "gapped");
  const auto r = test::run_cli("stats " + test::quoted(*file) + " --json");
  EXPECT_EQ(r.exit_code, 10) << r.err;
  EXPECT_NE(r.err.find("none of its tensors has values this command reads (1 left out"), std::string::npos)
      << r.err;
}

// A 4,000-byte key naming a list that holds one tensor 65,000 times costs the file 2 bytes a reference: its
// paths are capped at 16x the pickle's bytes (exit 5, at once), where 135 KB made 260 MB of names, 1.4 GB.
TEST(CliPytorchCases, MemoizedLongKeysAreCappedByThePickleSize) {
  TORCH_CASE(file, "long-keys");
  const auto r = test::run_cli_timeout(20, "tensors " + test::quoted(*file) + " --json");
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("16x the pickle's bytes"), std::string::npos) << r.err;
}

// A repository that ships both formats, downloaded with only *.json and *.safetensors, holds the PyTorch
// index without its shards: the safetensors are read (exact headers), as the README's precedence says, not
// the index's names against the template.
TEST(CliPytorchCases, SafetensorsBesideAPytorchIndexAreRead) {
  test::TempDir tmp;
  test::write_file(tmp / "config.json", R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"],
    "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
    "num_key_value_heads": 2, "vocab_size": 4, "tie_word_embeddings": true})");
  test::write_file(tmp / "pytorch_model.bin.index.json",
                   R"({"metadata": {}, "weight_map": {"model.embed_tokens.weight": "pytorch_model.bin"}})");
  write_safetensors(tmp / "model.safetensors",
                    {{"model.embed_tokens.weight", DType::F32, {4, 8}, std::string(4 * 8 * 4, '\0')}});
  const json::Document d = listed_tensors(tmp.path());
  EXPECT_EQ(d.root().find("origin")->as_string(), "headers");
  EXPECT_EQ(d.root().find("checkpoint")->find("format")->as_string(), "safetensors");
  EXPECT_TRUE(d.root().find("checkpoint")->find("bytes_exact")->as_bool());
  EXPECT_GT(json_of("stats", tmp.path()).root().find("summary")->find("tensors")->as_uint(), 0u);
}

// Views sharing one storage may cover it many times over: reading their values is bounded by the file (4x its
// bytes plus 64 MiB) so that a small file cannot make stats or compare read for hours. 120 slices of a 1 MiB
// storage cover 110 MB: stats and compare refuse (exit 5) before reading; listing them reads nothing and
// works.
TEST(CliPytorchCases, ViewsCoveringTheirStorageManyTimesAreNotReadAgainAndAgain) {
  TORCH_CASE(file, "overlapping-views");
  for (const std::string& command :
       {"stats " + test::quoted(*file), "compare " + test::quoted(*file) + " " + test::quoted(*file)}) {
    const auto r = test::run_cli(command);
    EXPECT_EQ(r.exit_code, 5) << command << ": " << r.err;
    EXPECT_NE(r.err.find("views sharing their storage"), std::string::npos) << r.err;
  }
  EXPECT_EQ(listed_tensors(*file).root().find("tensors")->items().size(), 120u);
}

}  // namespace
}  // namespace ma
