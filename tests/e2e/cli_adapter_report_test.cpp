// End-to-end: the report on a PEFT adapter directory — the adapter itself (type, rank, alpha, scaling,
// targets, its tensors) and, when its base model is found, the base's figures, which the merged model has.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cli_test_support.h"
#include "core/json.h"
#include "formats/safetensors_writer.h"

namespace ma::test {
namespace {

std::string f32_zeros(size_t n) {
  return std::string(n * 4, '\0');
}

// The fixture PEFT wrote for tiny-llama (EXPECTED.json: PEFT's own trainable and all-parameter counts), with
// its base beside it: merged = the base's parameters, unmerged = PEFT's all_params.
TEST(CliAdapterReport, LoraWithItsBaseEqualsPeftsCounts) {
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  const auto dir = *data / "fixtures" / "tiny-llama-lora";
  const json::Document expected = json::Document::parse(read_file(dir / "EXPECTED.json"), "EXPECTED.json");
  CommandResult r = run_cli("'" + dir.string() + "' --json --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  const json::Value& a = *d.root().find("adapter");
  EXPECT_EQ(a.find("peft_type")->as_string(), "LORA");
  EXPECT_EQ(a.find("r")->as_uint(), 4u);
  EXPECT_DOUBLE_EQ(a.find("lora_alpha")->as_double(), 8.0);
  EXPECT_DOUBLE_EQ(a.find("scaling")->as_double(), 2.0);
  EXPECT_EQ(a.find("target_modules")->items().size(), 2u);
  EXPECT_EQ(a.find("adapter_parameters")->as_uint(), expected.root().find("trainable_params")->as_uint());
  EXPECT_EQ(a.find("adapter_tensors")->as_uint(), expected.root().find("adapter_tensors")->items().size());
  EXPECT_EQ(a.find("unmerged_parameters")->as_uint(), expected.root().find("all_params")->as_uint());
  EXPECT_EQ(a.find("merged_parameters")->as_uint(), d.root().find("num_parameters")->as_uint());
  // Only the adapter trains: PEFT's trainable_params, not the merged model's count.
  EXPECT_EQ(d.root().find("num_parameters_trainable")->as_uint(),
            expected.root().find("trainable_params")->as_uint());
  // The rest of the report is the base's: tiny-llama's config is read.
  EXPECT_EQ(d.root().find("architecture_class")->as_string(), "LlamaForCausalLM");
  // --base names it explicitly, to the same figures.
  CommandResult b = run_cli("'" + dir.string() + "' --json --skip-tokenizer --base '" +
                            (*data / "fixtures" / "tiny-llama").string() + "'");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(json::Document::parse(b.out, "stdout").root().find("num_parameters")->as_uint(),
            d.root().find("num_parameters")->as_uint());
}

// rsLoRA scales by alpha / sqrt(r); a base that is nowhere is named, and nothing merged is claimed.
TEST(CliAdapterReport, MissingBaseIsNamedAndNothingMergedClaimed) {
  TempDir dir;
  write_file(dir / "adapter_config.json", R"({"peft_type": "LORA", "r": 16, "lora_alpha": 32,
    "use_rslora": true, "target_modules": "q_proj|v_proj", "base_model_name_or_path": "org/not-here"})");
  write_safetensors(dir / "adapter_model.safetensors",
                    {{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight",
                      DType::F32,
                      {16, 8},
                      f32_zeros(128)},
                     {"base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight",
                      DType::F32,
                      {8, 16},
                      f32_zeros(128)}});
  CommandResult r = run_cli("'" + dir.path().string() + "' --json --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("base model 'org/not-here' not found"), std::string::npos) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");  // alive while `a` refers into it
  const json::Value& a = *d.root().find("adapter");
  EXPECT_DOUBLE_EQ(a.find("scaling")->as_double(), 32.0 / 4.0);  // sqrt(16) = 4
  EXPECT_EQ(a.find("adapter_parameters")->as_uint(), 256u);
  EXPECT_EQ(a.find("adapter_bytes")->as_uint(), 1024u);
  EXPECT_EQ(a.find("target_modules")->items()[0].as_string(),
            "q_proj|v_proj");  // one regex, as PEFT takes it
  EXPECT_TRUE(a.find("merged_parameters")->is_null());
  EXPECT_TRUE(a.find("base_found_at")->is_null());
  EXPECT_EQ(d.root().find("num_parameters_trainable")->as_uint(), 256u);
  CommandResult console = run_cli("'" + dir.path().string() + "' --skip-tokenizer");
  EXPECT_NE(console.out.find("org/not-here — not found locally or in the cache (pass --base DIR)"),
            std::string::npos)
      << console.out;
  // A malformed rank is one clear error naming the file and the field.
  write_file(dir / "adapter_config.json", R"({"peft_type": "LORA", "r": -1})");
  CommandResult bad = run_cli("'" + dir.path().string() + "' --skip-tokenizer");
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_NE(bad.err.find("adapter_config.json"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("r"), std::string::npos) << bad.err;
}

// An adapter is checked against the base it is reported with, as PEFT's load would check it: a pair whose A
// or B does not fit the module, a rank other than the config's, a module the base lacks (GPT-2 has no
// q_proj). The fixture on its own base fits.
TEST(CliAdapterReport, AnAdapterThatDoesNotFitItsBaseIsWarned) {
  auto lora = [](const TempDir& dir, uint64_t r, uint64_t in, uint64_t rank) {
    write_file(dir / "adapter_config.json",
               R"({"peft_type": "LORA", "r": )" + std::to_string(r) + R"(, "lora_alpha": 8,
      "target_modules": ["q_proj"]})");
    const std::string a = "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight";
    const std::string b = "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight";
    write_safetensors(dir / "adapter_model.safetensors", {{a, DType::F32, {rank, in}, f32_zeros(rank * in)},
                                                          {b, DType::F32, {64, rank}, f32_zeros(64 * rank)}});
  };
  const std::string base = " --skip-tokenizer --base " + example();
  TempDir fits, wide, rank;
  lora(fits, 4, 64, 4);
  lora(wide, 4, 65, 4);
  lora(rank, 4, 64, 16);
  CommandResult ok = run_cli(quoted(fits.path()) + base);
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.err.find("does not fit"), std::string::npos) << ok.err;
  CommandResult w = run_cli(quoted(wide.path()) + base);
  EXPECT_NE(
      w.err.find("the adapter does not fit its base model (PEFT would refuse to load it): 1 LoRA module(s); "
                 "the first: model.layers.0.self_attn.q_proj: lora_A [4, 65] and lora_B [64, 4] against the "
                 "base's [64, 64]"),
      std::string::npos)
      << w.err;
  CommandResult r = run_cli(quoted(rank.path()) + base);
  EXPECT_NE(r.err.find("rank 16 (lora_B [64, 16]), where the config says r 4"), std::string::npos) << r.err;
  auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data not present";
  CommandResult gpt2 = run_cli(quoted(*data / "fixtures" / "tiny-llama-lora") + " --skip-tokenizer --base " +
                               quoted(*data / "fixtures" / "tiny-gpt2"));
  EXPECT_NE(gpt2.err.find("which the base has no weight for"), std::string::npos) << gpt2.err;
  CommandResult own = run_cli(quoted(*data / "fixtures" / "tiny-llama-lora") + " --skip-tokenizer");
  EXPECT_EQ(own.err.find("does not fit"), std::string::npos) << own.err;
}

// The base's weight may be stored without the model's prefix (GPT-2's checkpoint names h.0.attn.c_attn where
// PEFT names transformer.h.0.attn.c_attn) or packed (GPTQ's qweight): both fit, as PEFT loads them.
TEST(CliAdapterReport, ABaseStoredWithoutItsPrefixOrPackedFits) {
  TempDir base, adapter;
  write_file(base / "config.json",
             R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": 64,
    "n_head": 4, "n_layer": 1, "n_positions": 32, "vocab_size": 100})");
  write_safetensors(base / "model.safetensors",
                    {{"h.0.attn.c_attn.weight", DType::F32, {64, 192}, f32_zeros(64 * 192)},
                     {"h.0.mlp.c_fc.qweight", DType::I32, {8, 256}, f32_zeros(8 * 256)}});
  write_file(adapter / "adapter_config.json", R"({"peft_type": "LORA", "r": 2, "lora_alpha": 4,
    "target_modules": ["c_attn", "c_fc"]})");
  const std::string p = "base_model.model.transformer.h.0.";
  write_safetensors(adapter / "adapter_model.safetensors",
                    {{p + "attn.c_attn.lora_A.weight", DType::F32, {2, 64}, f32_zeros(128)},
                     {p + "attn.c_attn.lora_B.weight", DType::F32, {192, 2}, f32_zeros(384)},
                     {p + "mlp.c_fc.lora_A.weight", DType::F32, {2, 64}, f32_zeros(128)},
                     {p + "mlp.c_fc.lora_B.weight", DType::F32, {256, 2}, f32_zeros(512)}});
  CommandResult r = run_cli(quoted(adapter.path()) + " --skip-tokenizer --base " + quoted(base.path()));
  EXPECT_EQ(r.err.find("does not fit"), std::string::npos) << r.err;
}

// rank_pattern and alpha_pattern set some modules apart (PEFT: r and alpha per matching module, the adapter's
// elsewhere): each pattern with its scaling, rsLoRA's rule included. q_proj: r 8, alpha 32 -> 32 / sqrt(8);
// v_proj: r 16 (the adapter's), alpha 4 -> 1.
TEST(CliAdapterReport, RankAndAlphaPatternsHaveTheirOwnScaling) {
  TempDir dir;
  write_file(dir / "adapter_config.json", R"({"peft_type": "LORA", "r": 16, "lora_alpha": 32,
    "use_rslora": true, "target_modules": ["q_proj", "v_proj"], "rank_pattern": {"q_proj": 8},
    "alpha_pattern": {"q_proj": 32, "v_proj": 4}})");
  write_safetensors(dir / "adapter_model.safetensors",
                    {{"base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight",
                      DType::F32,
                      {8, 8},
                      f32_zeros(64)}});
  CommandResult r = run_cli("'" + dir.path().string() + "' --json --skip-tokenizer");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json::Document d = json::Document::parse(r.out, "stdout");
  const auto& patterns = d.root().find("adapter")->find("patterns")->items();
  ASSERT_EQ(patterns.size(), 2u);
  EXPECT_EQ(patterns[0].find("pattern")->as_string(), "q_proj");
  EXPECT_EQ(patterns[0].find("r")->as_uint(), 8u);
  EXPECT_DOUBLE_EQ(patterns[0].find("scaling")->as_double(), 32.0 / std::sqrt(8.0));
  EXPECT_EQ(patterns[1].find("pattern")->as_string(), "v_proj");
  EXPECT_EQ(patterns[1].find("r")->as_uint(), 16u);
  EXPECT_DOUBLE_EQ(patterns[1].find("scaling")->as_double(), 4.0 / 4.0);
  CommandResult console = run_cli("'" + dir.path().string() + "' --skip-tokenizer");
  EXPECT_NE(console.out.find("q_proj: r 8, alpha 32 (scaling "), std::string::npos) << console.out;
  write_file(dir / "adapter_config.json", R"({"peft_type": "LORA", "r": 16, "rank_pattern": {"q_proj": 0}})");
  CommandResult bad = run_cli("'" + dir.path().string() + "' --skip-tokenizer");
  EXPECT_EQ(bad.exit_code, 3) << bad.err;
  EXPECT_NE(bad.err.find("rank_pattern.q_proj: must be a positive integer"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ma::test
