// Capabilities: generation, context (declared and rope-extended), LoRA / QLoRA, on real configs; expected
// figures derived by hand from each config.json (derivation beside each).
#include "analysis/capabilities.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/architecture_details.h"
#include "report_test_support.h"

namespace ma {
namespace {

std::unique_ptr<test::LoadedModel> real(const char* dir) {
  auto data = test::shared_data();
  if (!data) return nullptr;
  return test::load_model(*data / "hf-configs" / dir);
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool any_note(const Capabilities& c, const std::string& needle) {
  return std::any_of(c.notes.begin(), c.notes.end(),
                     [&](const std::string& n) { return n.find(needle) != std::string::npos; });
}

TEST(Capabilities, Llama31RopeLlama3) {
  auto m = real("meta-llama__Meta-Llama-3.1-8B");
  if (!m) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(m->inputs());
  // config: max_position_embeddings 131072; rope_scaling {rope_type llama3, factor 8,
  // original_max_position_embeddings 8192}: declared 131,072 > original 8,192, so 131,072 is the reach.
  EXPECT_TRUE(c.can_generate);
  EXPECT_EQ(c.max_context_length, 131072u);
  EXPECT_EQ(c.original_context_length, 8192u);
  EXPECT_EQ(c.rope_scaling_type, "llama3");
  EXPECT_EQ(c.rope_scaling_factor, 8.0);
  EXPECT_TRUE(c.supports_long_context);
  // Llama's decoder layers: q/k/v/o_proj and gate/up/down_proj, all nn.Linear; bf16 weights.
  EXPECT_TRUE(c.lora_compatible);
  for (const char* mod : {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"})
    EXPECT_TRUE(has(c.lora_target_modules, mod)) << mod;
  EXPECT_EQ(c.lora_target_modules.size(), 7u);
  EXPECT_TRUE(c.qlora_compatible);
  EXPECT_TRUE(c.prequantized.empty());
}

TEST(Capabilities, Phi3Mini128kLongRope) {
  auto m = real("microsoft__Phi-3-mini-128k-instruct");
  if (!m) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(m->inputs());
  // max_position_embeddings 131072, top-level original_max_position_embeddings 4096, rope_scaling type
  // longrope (per-dimension factors, no single factor).
  EXPECT_EQ(c.max_context_length, 131072u);
  EXPECT_EQ(c.original_context_length, 4096u);
  EXPECT_EQ(c.rope_scaling_type, "longrope");
  EXPECT_FALSE(c.rope_scaling_factor);
  EXPECT_TRUE(c.supports_long_context);
  EXPECT_TRUE(has(c.lora_target_modules, "qkv_proj")) << "Phi-3 fuses q, k, v";
  EXPECT_TRUE(has(c.lora_target_modules, "gate_up_proj"));
}

TEST(Capabilities, DeepSeekV3YarnAndFp8) {
  auto m = real("deepseek-ai__DeepSeek-V3");
  if (!m) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(m->inputs());
  // yarn factor 40 x original 4096 = 163,840 = max_position_embeddings.
  EXPECT_EQ(c.max_context_length, 163840u);
  EXPECT_EQ(c.original_context_length, 4096u);
  EXPECT_EQ(c.rope_scaling_type, "yarn");
  EXPECT_FALSE(any_note(c, "differs")) << "factor x original agrees with the declared maximum";
  // quantization_config {quant_method fp8}: QLoRA would need the bf16 weights.
  EXPECT_TRUE(c.lora_compatible);
  EXPECT_FALSE(c.qlora_compatible);
  EXPECT_NE(c.prequantized.find("fp8"), std::string::npos) << c.prequantized;
  EXPECT_TRUE(has(c.lora_target_modules, "kv_a_proj_with_mqa")) << "MLA projections are linear";
}

TEST(Capabilities, Qwen25DeclaresItsContextWithoutRopeScaling) {
  auto m = real("Qwen__Qwen2.5-7B");
  if (!m) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(m->inputs());
  EXPECT_EQ(c.max_context_length, 131072u);  // max_position_embeddings, no rope_scaling
  EXPECT_FALSE(c.original_context_length);
  EXPECT_TRUE(c.rope_scaling_type.empty());
}

// Mamba layers only: no positions and a fixed-size state, so no context limit (whatever length the config
// carries), long context yes; a hybrid with attention keeps its declared limit.
TEST(Capabilities, PureStateSpaceModelsHaveNoContextLimit) {
  test::TempDir dir;
  test::write_file(dir / "config.json", R"({"model_type":"mamba","hidden_size":64,"state_size":8,
      "num_hidden_layers":2,"vocab_size":100,"max_position_embeddings":256})");
  auto m = test::load_model(dir.path(), false);
  const Capabilities c = assess_capabilities(m->inputs());
  EXPECT_FALSE(c.position_limit);
  EXPECT_FALSE(c.max_context_length);
  EXPECT_TRUE(c.supports_long_context);
  EXPECT_TRUE(any_note(c, "no context limit"));
  test::write_file(dir / "config.json", test::tiny_llama_config("2"));
  auto llama = test::load_model(dir.path(), false);
  EXPECT_TRUE(assess_capabilities(llama->inputs()).position_limit);
}

// Without a template there are no tensors to find projections in: LoRA and QLoRA are not known, not "no";
// without a context length, long context is not known either.
TEST(Capabilities, WithoutATemplateAdaptersAreNotKnown) {
  test::TempDir dir;
  test::write_file(dir / "config.json",
                   R"({"model_type":"frobnitz","architectures":["FrobnitzForCausalLM"]})");
  auto m = test::load_model(dir.path(), false);
  ASSERT_FALSE(m->template_built);
  const Capabilities c = assess_capabilities(m->inputs());
  EXPECT_FALSE(c.adapters_known);
  EXPECT_FALSE(c.long_context_known());
  EXPECT_TRUE(any_note(c, "LoRA compatibility unknown"));
  // Nor is the MLP "none": without layers nothing is known of it.
  EXPECT_EQ(describe_architecture(m->inventory.arch, m->params, {}).mlp_type, "");
}

TEST(Capabilities, Gpt2) {
  auto m = real("openai-community__gpt2");
  if (!m) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(m->inputs());
  EXPECT_TRUE(c.can_generate);
  EXPECT_EQ(c.max_context_length, 1024u);  // n_positions 1024 (GPT-2 has no max_position_embeddings key)
  EXPECT_EQ(c.context_source, "n_positions");
  EXPECT_FALSE(c.supports_long_context);
  EXPECT_TRUE(c.lora_compatible);
  EXPECT_TRUE(has(c.lora_target_modules, "c_attn"));
  EXPECT_TRUE(any_note(c, "fan_in_fan_out"));
  EXPECT_TRUE(c.qlora_compatible);
}

TEST(Capabilities, BertCannotGenerate) {
  auto m = real("google-bert__bert-base-uncased");
  if (!m) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(m->inputs());
  EXPECT_FALSE(c.can_generate);  // BertForMaskedLM: fills masks, no decoding loop
  EXPECT_TRUE(any_note(c, "masked-lm"));
  EXPECT_EQ(c.max_context_length, 512u);  // max_position_embeddings 512
  EXPECT_FALSE(c.supports_long_context);
  EXPECT_TRUE(has(c.lora_target_modules, "query"));
}

TEST(Capabilities, VitAndWhisper) {
  auto vit = real("google__vit-base-patch16-224");
  if (!vit) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(vit->inputs());
  EXPECT_FALSE(c.can_generate);
  EXPECT_FALSE(c.max_context_length);
  auto whisper = real("openai__whisper-base");
  c = assess_capabilities(whisper->inputs());
  EXPECT_TRUE(c.can_generate);
  EXPECT_EQ(c.max_context_length, 448u);  // max_target_positions: decoder tokens
  EXPECT_TRUE(any_note(c, "1,500"));      // max_source_positions
}

TEST(Capabilities, GptqCheckpointIsNotForQlora) {
  auto m = real("TheBloke__Llama-2-13B-chat-GPTQ");
  if (!m) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(m->inputs());
  EXPECT_EQ(c.max_context_length, 4096u);
  EXPECT_TRUE(c.lora_compatible);
  EXPECT_FALSE(c.qlora_compatible);
  EXPECT_NE(c.prequantized.find("gptq 4-bit"), std::string::npos) << c.prequantized;
}

TEST(Capabilities, ModelOptNvfp4IsNotForQlora) {
  auto m = real("nvidia__Qwen3-32B-NVFP4");
  if (!m) GTEST_SKIP() << "no ../shared/data";
  Capabilities c = assess_capabilities(m->inputs());
  EXPECT_FALSE(c.qlora_compatible);  // hf_quant_config.json quant_algo NVFP4
  EXPECT_NE(c.prequantized.find("NVFP4"), std::string::npos) << c.prequantized;
}

TEST(Capabilities, Fp8FixtureFromStoredTensors) {
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  auto m = test::load_model(*data / "fixtures" / "tiny-qwen3-fp8");
  Capabilities c = assess_capabilities(m->inputs());
  EXPECT_FALSE(c.qlora_compatible);
  EXPECT_FALSE(c.prequantized.empty());
}

TEST(Capabilities, UnsupportedFamilyStillHasContext) {
  // ChatGLM2's config read alone, as for a family without a template (ChatGLM itself now has a hand-derived
  // one): naming the model and reading its context need no inventory.
  auto data = test::shared_data();
  if (!data) GTEST_SKIP() << "no ../shared/data";
  auto m = test::config_only(test::read_file(*data / "hf-configs" / "THUDM__chatglm2-6b" / "config.json"),
                             "THUDM/chatglm2-6b");
  ASSERT_FALSE(m->template_built);
  Capabilities c = assess_capabilities(m->inputs());
  EXPECT_TRUE(c.can_generate);
  EXPECT_EQ(c.max_context_length, 32768u);  // seq_length 32768 (no max_position_embeddings)
  EXPECT_TRUE(c.supports_long_context);
  EXPECT_FALSE(c.lora_compatible) << "no inventory: not claimed";
  EXPECT_TRUE(any_note(c, "unknown"));
}

TEST(Capabilities, FactorTimesOriginalWhenTheConfigKeepsTheOriginalLength) {
  // max_position_embeddings left at the original 4096, linear x4 from an original of 4096: 16,384.
  auto m = test::config_only(R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"],
      "max_position_embeddings": 4096,
      "rope_scaling": {"rope_type": "linear", "factor": 4.0, "original_max_position_embeddings": 4096}})",
                             "org/m");
  Capabilities c = assess_capabilities(m->inputs());
  EXPECT_EQ(c.max_context_length, 16384u);
  EXPECT_EQ(c.original_context_length, 4096u);
  // Without the original, the declared length stands and the note says why.
  m = test::config_only(R"({"model_type": "llama", "max_position_embeddings": 4096,
      "rope_scaling": {"type": "dynamic", "factor": 2.0}})",
                        "org/m");
  c = assess_capabilities(m->inputs());
  EXPECT_EQ(c.max_context_length, 4096u);
  EXPECT_FALSE(c.original_context_length);
  EXPECT_TRUE(any_note(c, "dynamic NTK"));
}

TEST(Capabilities, HostileValuesAreUnknownNotCrashes) {
  for (
      const char* cfg :
      {R"({"model_type": "llama", "max_position_embeddings": "lots"})",
       R"({"model_type": "llama", "max_position_embeddings": -5})",
       R"({"model_type": "llama", "max_position_embeddings": 0})",
       R"({"model_type": "llama", "max_position_embeddings": 1e300})",
       R"({"model_type": "llama", "max_position_embeddings": 99999999999999999999})",
       R"({"model_type": "llama", "rope_scaling": {"factor": 1e300, "original_max_position_embeddings": 8}})",
       R"({"model_type": "llama", "rope_scaling": "yes", "text_config": 3})",
       R"({"model_type": "baichuan", "model_max_length": 1e30})"}) {
    auto m = test::config_only(cfg, "org/m");
    Capabilities c;
    ASSERT_NO_THROW(c = assess_capabilities(m->inputs())) << cfg;
    EXPECT_FALSE(c.max_context_length) << cfg;
    EXPECT_FALSE(c.supports_long_context) << cfg;
  }
}

}  // namespace
}  // namespace ma
