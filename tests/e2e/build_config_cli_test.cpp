// End-to-end: `modelanalyzer build-config` as a user runs it: the config and gap reports written, the
// console table, validation's exit code with the config still complete, and bad input (a catalogue file, a
// missing --out) refused with one stderr line and no output file. The entries themselves:
// unit/build_config_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_support.h"
#include "core/json.h"
#include "json_schema.h"

namespace fs = std::filesystem;

namespace ma::test {
namespace {

#define MODEL_OR_SKIP(var, name)                                 \
  auto data_ = shared_data();                                    \
  if (!data_) GTEST_SKIP() << "../shared/data is not available"; \
  const std::string var = quoted(*data_ / "hf-configs" / (name))

const json::Value* entry(const json::Document& d, std::string_view name) {
  for (const json::Value& e : d.root().find("layer_types")->items())
    if (e.find("name")->as_string() == name) return &e;
  return nullptr;
}

// Runs build-config on `model` writing DIR/NAME.json and DIR/NAME-gaps/, expecting success; the config read.
json::Document build_config(const std::string& model, const TempDir& dir, const std::string& name,
                            const std::string& options = "") {
  const CommandResult r = run_cli("build-config " + model + " --out " + quoted(dir / (name + ".json")) +
                                  " --gaps " + quoted(dir / (name + "-gaps")) + options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return parse_json_file(dir / (name + ".json"));
}

std::vector<std::string> violations(const json::Document& d) {
  const json::Document schema =
      parse_json_file(fs::path(MA_SOURCE_DIR) / "docs/schema/mantile-config.schema.json");
  return schema_violations(schema.root(), d.root());
}

TEST(BuildConfigCli, Llama70bWritesTheConfigTheHeadsGapReportAndValidates) {
  MODEL_OR_SKIP(model, "meta-llama__Llama-3.3-70B-Instruct");
  TempDir dir;
  const CommandResult r =
      run_cli("build-config " + model + " --out " + quoted(dir / "llama.json") + " --gaps " +
              quoted(dir / "gaps") + " --expect-params 70e9 --expect-layers 80 --tolerance 1%");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = parse_json_file(dir / "llama.json");
  EXPECT_TRUE(violations(d).empty());
  EXPECT_EQ(*d.root().find("total_params")->as_uint(), 70'553'706'496u);
  EXPECT_EQ(d.root().find("hf_model_id")->as_string(), "meta-llama/Llama-3.3-70B-Instruct");
  EXPECT_TRUE(d.root().find("validated")->as_bool());
  EXPECT_EQ(d.root().find("validation_sources")->items().size(), 2u);
  const json::Value* head = entry(d, "lm_head");
  ASSERT_NE(head, nullptr);
  EXPECT_FALSE(head->find("supported")->as_bool());
  EXPECT_EQ(*head->find("specs")->find("parameter_count")->as_uint(), 1'050'673'152u);
  const std::string gap = std::string(head->find("gap_report")->as_string());
  EXPECT_EQ(gap, "gaps/meta-llama_Llama-3.3-70B-Instruct.lm_head.md");
  const std::string md = read_file(dir / gap);
  for (const char* part :
       {"lm_head.weight", "[128256, 8192]", "bf16", "ParallelLMHead", "TP 8", "[16032, 8192]",
        "all-gather of the logits, 128,256 elements x 2 bytes (bf16) = 256,512 bytes"})
    EXPECT_NE(md.find(part), std::string::npos) << part;
  EXPECT_EQ(*entry(d, "norm")->find("count")->as_uint(), 161u);
  EXPECT_EQ(entry(d, "attention")->find("gap_report"), nullptr);
  // The console table: one line per entry, with the class, count and parameters each.
  EXPECT_NE(r.out.find("GroupedQueryAttentionLayer"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("704,643,072"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("validated"), std::string::npos) << r.out;
}

TEST(BuildConfigCli, AFailedValidationExits11AndStillWritesTheWholeConfig) {
  MODEL_OR_SKIP(model, "meta-llama__Llama-3.3-70B-Instruct");
  TempDir dir;
  const CommandResult r = run_cli("build-config " + model + " --out " + quoted(dir / "c.json") + " --gaps " +
                                  quoted(dir / "gaps") + " --expect-params 8e9");
  EXPECT_EQ(r.exit_code, 11) << r.err;
  EXPECT_EQ(occurrences(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find("validation failed: total parameters 70,553,706,496"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("DISCREPANCY: total parameters 70,553,706,496"), std::string::npos) << r.out;
  const json::Document d = parse_json_file(dir / "c.json");  // complete JSON, or this throws
  EXPECT_TRUE(violations(d).empty());
  EXPECT_FALSE(d.root().find("validated")->as_bool());
  EXPECT_NE(d.root().find("validation_notes")->as_string().find("--expect-params 8B"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "gaps" / "meta-llama_Llama-3.3-70B-Instruct.lm_head.md"));
}

// Below a million a claimed count is written as the count it is: "1,000", not "0.001M" (1 was "1e-06M").
TEST(BuildConfigCli, ASmallExpectedCountIsWrittenAsItIs) {
  TempDir dir;
  const CommandResult r = run_cli("build-config " + example() + " --out " + quoted(dir / "c.json") +
                                  " --gaps " + quoted(dir / "gaps") + " --expect-params 1000");
  EXPECT_EQ(r.exit_code, 11) << r.err;
  EXPECT_NE(r.out.find("against --expect-params 1,000:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("e-0"), std::string::npos) << r.out;
}

TEST(BuildConfigCli, PublishedClaimsBesideTheModelAreChecked) {
  MODEL_OR_SKIP(model, "openai__gpt-oss-120b");
  TempDir dir;
  const json::Document d = build_config(model, dir, "c");
  EXPECT_TRUE(d.root().find("validated")->as_bool());
  EXPECT_NE(d.root().find("validation_notes")->as_string().find("published total 117B"), std::string::npos);
  EXPECT_NE(d.root().find("validation_sources")->items().at(0).as_string().find("PARAM_COUNTS.tsv"),
            std::string::npos);
  EXPECT_NE(entry(d, "attention_sliding"), nullptr);
  EXPECT_TRUE(entry(d, "attention_full")->find("specs")->find("sliding_window")->is_null());
}

TEST(BuildConfigCli, ACatalogueWithMlaMakesDeepSeeksAttentionSupported) {
  MODEL_OR_SKIP(model, "deepseek-ai__DeepSeek-V3");
  TempDir dir;
  const json::Document a = build_config(model, dir, "a");
  EXPECT_FALSE(entry(a, "mla_attention")->find("supported")->as_bool());
  const std::string gap(entry(a, "mla_attention")->find("gap_report")->as_string());
  EXPECT_NE(read_file(dir / gap).find("kv_b_proj"), std::string::npos);

  write_file(
      dir / "classes.json",
      R"({"classes": [{"name": "MLAAttentionLayer", "arguments": ["layer_idx", "hidden_size", "num_heads",
                 "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"]}]})");
  const json::Document b = build_config(model, dir, "b", " --target-layers " + quoted(dir / "classes.json"));
  const json::Value* mla = entry(b, "mla_attention");
  EXPECT_TRUE(mla->find("supported")->as_bool());
  EXPECT_EQ(mla->find("gap_report"), nullptr);
  EXPECT_EQ(*mla->find("specs")->find("kv_lora_rank")->as_uint(), 512u);
  EXPECT_FALSE(fs::exists(dir / "b-gaps" / "deepseek-ai_DeepSeek-V3.mla_attention.md"));
}

// A class of Mantile's that cannot rebuild the layer from the arguments it takes is a gap saying so, not a
// supported entry with arguments that build another layer: Qwen3-Next's attention has an output gate in
// q_proj (27,262,976 parameters where GroupedQueryAttentionLayer builds 18,874,368). Biases, which no class
// but the sliding-window one takes, stay supported with a note (Qwen2.5's q, k and v biases).
TEST(BuildConfigCli, AClassThatCannotRebuildTheLayerIsAGap) {
  TempDir dir;
  {
    MODEL_OR_SKIP(model, "Qwen__Qwen3-Next-80B-A3B-Thinking");
    const json::Document d = build_config(model, dir, "qwen3-next");
    const json::Value* e = entry(d, "attention");
    ASSERT_NE(e, nullptr);
    EXPECT_FALSE(e->find("supported")->as_bool());
    const std::string report = read_file(dir / std::string(e->find("gap_report")->as_string()));
    EXPECT_NE(report.find("parameters from its arguments, the layer holds"), std::string::npos) << report;
  }
  MODEL_OR_SKIP(qwen25, "Qwen__Qwen2.5-7B");
  const json::Document q = build_config(qwen25, dir, "qwen25");
  EXPECT_TRUE(entry(q, "attention")->find("supported")->as_bool());
  EXPECT_NE(
      q.root()
          .find("validation_notes")
          ->as_string()
          .find("attention: GroupedQueryAttentionLayer builds 29,360,128 parameters from its arguments; the "
                "layer's 4,608 more are biases"),
      std::string::npos);
}

// ChatGLM2's dense_h_to_4h holds gate and up fused (2 x 13,696 rows), so its MLP is a GatedMLPLayer whose
// arguments rebuild it: 3 x 4,096 x 13,696 = 168,296,448 parameters. Read as a plain up projection (its name
// is GPT-NeoX's), it was an MLPLayer of two projections, a gap of a third of the layer.
TEST(BuildConfigCli, ChatGlm2sFusedGateUpIsAGatedMlp) {
  TempDir dir;
  MODEL_OR_SKIP(model, "THUDM__chatglm2-6b");
  const json::Document d = build_config(model, dir, "chatglm2");
  const json::Value* mlp = entry(d, "mlp");
  ASSERT_NE(mlp, nullptr);
  EXPECT_TRUE(mlp->find("supported")->as_bool());
  EXPECT_EQ(mlp->find("class")->as_string(), "GatedMLPLayer");
  EXPECT_EQ(*mlp->find("specs")->find("intermediate_size")->as_uint(), 13'696u);
  EXPECT_EQ(*mlp->find("specs")->find("parameter_count")->as_uint(), 168'296'448u);
}

TEST(BuildConfigCli, ABadCatalogueIsOneLineExit3AndNoOutput) {
  TempDir dir;
  write_file(dir / "classes.json", R"({"classes": [{"name": "X", "arguments": ["a", 7]}]})");
  const CommandResult r =
      run_cli("build-config " + example() + " --out " + quoted(dir / "c.json") + " --gaps " +
              quoted(dir / "g") + " --target-layers " + quoted(dir / "classes.json"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(occurrences(r.err, "\n"), 1u) << r.err;
  EXPECT_NE(r.err.find("classes.json: classes[0].arguments[1]"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "c.json"));
  EXPECT_FALSE(fs::exists(dir / "g"));
}

TEST(BuildConfigCli, TheExampleModelBuildsAndMissingOptionsAreUsageErrors) {
  TempDir dir;
  const json::Document d = build_config(example(), dir, "c");
  EXPECT_TRUE(violations(d).empty());
  // The example (hidden 64, 4 heads of 16, 2 KV heads, MLP 160, vocabulary 512, 2 layers, untied head), by
  // hand: attention 64x64 + 2 x 32x64 + 64x64, MLP 3 x 64x160, two norms a layer and the final one.
  struct Expected {
    const char* name;
    uint64_t count, each;
  };
  uint64_t sum = 0;
  for (const Expected& e :
       {Expected{"embedding", 1, 512 * 64}, Expected{"attention", 2, 12'288}, Expected{"mlp", 2, 30'720},
        Expected{"norm", 5, 64}, Expected{"lm_head", 1, 512 * 64}}) {
    const json::Value* v = entry(d, e.name);
    ASSERT_NE(v, nullptr) << e.name;
    EXPECT_EQ(*v->find("count")->as_uint(), e.count) << e.name;
    EXPECT_EQ(*v->find("specs")->find("parameter_count")->as_uint(), e.each) << e.name;
    sum += e.count * e.each;
  }
  EXPECT_EQ(*d.root().find("total_params")->as_uint(), sum);
  EXPECT_EQ(d.root().find("layer_types")->items().size(), 5u);
  const CommandResult no_out = run_cli("build-config " + example() + " --gaps " + quoted(dir / "g"));
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_NE(no_out.err.find("--out"), std::string::npos) << no_out.err;
  const CommandResult bad_tol = run_cli("build-config " + example() + " --out " + quoted(dir / "d.json") +
                                        " --gaps " + quoted(dir / "g") + " --tolerance 5x");
  EXPECT_EQ(bad_tol.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "d.json"));
}

// Two outputs to one place are a usage error (exit 2) before anything is created: the config over a gap
// report (which it would replace), the config as the gaps directory, and standard output as that directory.
TEST(BuildConfigCli, OutputsThatCollideAreRefusedBeforeAnythingIsCreated) {
  TempDir dir;
  const CommandResult over_report =
      run_cli("build-config " + example() + " --out " + quoted(dir / "g" / "tiny-llama.lm_head.md") +
              " --gaps " + quoted(dir / "g"));
  EXPECT_EQ(over_report.exit_code, 2) << over_report.err;
  EXPECT_NE(over_report.err.find("--out and --gaps"), std::string::npos) << over_report.err;
  EXPECT_FALSE(fs::exists(dir / "g"));
  const CommandResult same =
      run_cli("build-config " + example() + " --out " + quoted(dir / "x") + " --gaps " + quoted(dir / "x"));
  EXPECT_EQ(same.exit_code, 2) << same.err;
  EXPECT_FALSE(fs::exists(dir / "x"));
  const CommandResult to_stdout =
      run_cli_in(dir.path(), "build-config " + example() + " --out c.json --gaps -");
  EXPECT_EQ(to_stdout.exit_code, 2) << to_stdout.err;
  EXPECT_FALSE(fs::exists(dir / "-"));
  EXPECT_FALSE(fs::exists(dir / "c.json"));
}

// The model is its directory however MODEL spells it: ".", "DIR/." and "DIR/config.json" give the same ids
// and gap report names as "DIR", and find its published counts beside it (a hidden "..lm_head.md" and an
// unvalidated "config" model before).
TEST(BuildConfigCli, TheModelIdIsTheDirectorysHoweverModelIsSpelt) {
  MODEL_OR_SKIP(model, "openai__gpt-oss-120b");
  const fs::path model_dir = *data_ / "hf-configs" / "openai__gpt-oss-120b";
  TempDir dir;
  int n = 0;
  for (const std::string& spelling :
       std::vector<std::string>{".", "./", "config.json", (model_dir / ".").string()}) {
    const std::string name = "c" + std::to_string(n++);
    const CommandResult r = run_cli_in(model_dir, "build-config " + quoted(fs::path(spelling)) + " --out " +
                                                      quoted(dir / (name + ".json")) + " --gaps " +
                                                      quoted(dir / (name + "-gaps")) + " -q");
    ASSERT_EQ(r.exit_code, 0) << spelling << ": " << r.err;
    const json::Document d = parse_json_file(dir / (name + ".json"));
    EXPECT_EQ(d.root().find("model_id")->as_string(), "openai_gpt-oss-120b") << spelling;
    EXPECT_EQ(d.root().find("hf_model_id")->as_string(), "openai/gpt-oss-120b") << spelling;
    EXPECT_EQ(d.root().find("name")->as_string(), "gpt-oss-120b") << spelling;
    EXPECT_TRUE(d.root().find("validated")->as_bool()) << spelling;  // PARAM_COUNTS.tsv's row found
    EXPECT_TRUE(fs::exists(dir / (name + "-gaps") / "openai_gpt-oss-120b.lm_head.md")) << spelling;
  }
}

}  // namespace
}  // namespace ma::test
