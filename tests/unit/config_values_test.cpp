// Known config keys holding values transformers would not take must not change the figures silently: a
// torch_dtype that names no dtype, or a rotary base that is no number, fail like a wrong-typed required key
// (exit 3, one line naming the file and the field), as transformers cannot load or build such a model; a
// null depth, or a descriptive number out of range (a negative eps or rope_theta), is read as absent with a
// warning naming the field. Null for an optional key stays "absent", silently: real configs write it
// (rope_scaling, sliding_window, head_dim, num_key_value_heads).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "model/config.h"
#include "model/family_registry.h"
#include "test_support.h"

namespace ma::test {
namespace {

// A 2-layer tiny Llama (test_support's) with `extra` members (",\"key\": value") added.
std::string llama_with(const std::string& extra) {
  std::string c = tiny_llama_config("2");
  c.pop_back();  // the closing brace
  return c + extra + "}";
}

// The Error a build of `config` raises; fails the test when it builds.
Error build_error(const std::string& config) {
  try {
    build_template(ModelConfig::parse(config, "m/config.json"));
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "built: " << config;
  return Error(ErrorKind::Internal, "", "", "");
}

struct Built {
  ModelTemplate model;
  std::vector<std::string> warnings;
};
Built build(const std::string& config) {
  const ModelConfig cfg = ModelConfig::parse(config, "m/config.json");
  ModelTemplate t = build_template(cfg);
  return {std::move(t), cfg.warnings()};
}

TEST(ConfigValues, ATorchDtypeThatNamesNoDtypeIsMalformed) {
  // getattr(torch, "float128") fails in transformers; we computed the memory at float32 instead.
  for (const char* name : {"float128", "torch.float128", "bf17", ""}) {
    const Error e = build_error(llama_with(std::string(R"(,"torch_dtype": ")") + name + "\""));
    EXPECT_EQ(e.kind(), ErrorKind::Malformed) << name;
    EXPECT_EQ(e.exit_code(), 3);
    EXPECT_EQ(e.file(), "m/config.json");
    EXPECT_EQ(e.field(), "torch_dtype") << e.what();
  }
  // transformers 5 writes "dtype"; a multimodal model's text_config has its own.
  EXPECT_EQ(build_error(llama_with(R"(,"dtype": "float128")")).field(), "dtype");
  const Error nested = build_error(llama_with(R"(,"text_config": {"dtype": "half-ish"})"));
  EXPECT_EQ(nested.field(), "text_config.dtype") << nested.what();
  EXPECT_NE(std::string(nested.what()).find("'half-ish' is no dtype"), std::string::npos) << nested.what();
  EXPECT_EQ(build_error(llama_with(R"(,"text_config": {"torch_dtype": 16})")).field(),
            "text_config.torch_dtype");
}

// What real configs write (bfloat16, float16, float32; older ones "torch.float16"), and "auto" or null
// (which declare nothing), build as before.
TEST(ConfigValues, TheDtypeNamesRealConfigsUseAreAccepted) {
  EXPECT_EQ(build(llama_with(R"(,"torch_dtype": "bfloat16")")).model.arch.stored_dtype, DType::BF16);
  EXPECT_EQ(build(llama_with(R"(,"torch_dtype": "float16")")).model.arch.stored_dtype, DType::F16);
  EXPECT_EQ(build(llama_with(R"(,"torch_dtype": "float32")")).model.arch.stored_dtype, DType::F32);
  EXPECT_EQ(build(llama_with(R"(,"torch_dtype": "torch.float16")")).model.arch.stored_dtype, DType::F16);
  EXPECT_EQ(build(llama_with(R"(,"dtype": "bfloat16")")).model.arch.stored_dtype, DType::BF16);
  for (const char* extra : {R"(,"torch_dtype": "auto")", R"(,"torch_dtype": null)", ""}) {
    const Built b = build(llama_with(extra));
    EXPECT_FALSE(b.model.arch.stored_dtype) << extra;
    EXPECT_TRUE(b.warnings.empty()) << extra;
  }
}

// transformers keeps None for a null num_hidden_layers (range(None) fails); LlamaConfig's default, 32, is
// what we assume, and the report says so.
TEST(ConfigValues, ANullDepthIsReadAsAbsentWithAWarning) {
  std::string config = tiny_llama_config("null");
  const Built b = build(config);
  EXPECT_EQ(b.model.arch.layers().size(), 32u);  // LlamaConfig(num_hidden_layers=32)
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_EQ(b.warnings[0].rfind("config.json: num_hidden_layers: is null", 0), 0u) << b.warnings[0];
  EXPECT_NE(b.warnings[0].find("32"), std::string::npos) << b.warnings[0];
}

// Null for a key that has no value to give is how transformers writes "unset": no warning.
TEST(ConfigValues, NullOptionalKeysSayNothing) {
  const Built b = build(llama_with(
      R"(,"rope_scaling": null, "sliding_window": null, "head_dim": null, "num_key_value_heads": null,)"
      R"("attn_logit_softcapping": null, "rms_norm_eps": null, "hidden_act": null, "rope_theta": null,)"
      R"("torch_dtype": null, "pad_token_id": null)"));
  EXPECT_TRUE(b.warnings.empty()) << b.warnings.front();
  EXPECT_EQ(b.model.arch.layers().size(), 2u);
}

// transformers computes inv_freq = 1 / base ** (arange(0, d, 2) / d) when it builds the rotary embedding: a
// string base raises a TypeError there, so the model cannot be built, and it cannot be analysed here.
TEST(ConfigValues, ARotaryBaseThatIsNoNumberIsMalformed) {
  const Error e = build_error(llama_with(R"(,"rope_theta": "abc")"));
  EXPECT_EQ(e.kind(), ErrorKind::Malformed);
  EXPECT_EQ(e.field(), "rope_theta");
  EXPECT_NE(std::string(e.what()).find("m/config.json: rope_theta: must be a number"), std::string::npos)
      << e.what();
  // transformers 5 keeps it in rope_parameters.
  EXPECT_EQ(
      build_error(llama_with(R"(,"rope_parameters": {"rope_type": "default", "rope_theta": [1]})")).field(),
      "rope_parameters.rope_theta");
}

// Values a model builds with but that mean nothing (a rotary base of -1 gives NaN frequencies, an eps below 0
// a square root of a negative number) are left out of the record, with a warning naming the field.
TEST(ConfigValues, OutOfRangeDescriptiveValuesAreLeftOutWithAWarning) {
  const Built theta = build(llama_with(R"(,"rope_theta": -1)"));
  ASSERT_TRUE(theta.model.arch.rope);
  EXPECT_EQ(theta.model.arch.rope->theta, 0.0);  // "not given"
  ASSERT_EQ(theta.warnings.size(), 1u);
  EXPECT_EQ(theta.warnings[0], "config.json: rope_theta: must be above 0, found -1: left out of the report");

  const Built eps = build(llama_with(R"(,"rms_norm_eps": -1)"));
  EXPECT_FALSE(eps.model.arch.norm_eps);
  ASSERT_EQ(eps.warnings.size(), 1u);
  EXPECT_EQ(eps.warnings[0],
            "config.json: rms_norm_eps: must be at least 0, found -1: left out of the report");

  const Built typed = build(llama_with(R"(,"rms_norm_eps": "tiny", "hidden_act": 5)"));
  EXPECT_FALSE(typed.model.arch.norm_eps);
  EXPECT_EQ(typed.warnings,
            (std::vector<std::string>{
                "config.json: rms_norm_eps: must be a number, found a string: left out of the report",
                "config.json: hidden_act: must be a string, found a number: left out of the report"}));

  // In range: taken as written, no warning. An eps of 0 is a valid (if unusual) eps.
  const Built fine = build(llama_with(R"(,"rope_theta": 500000, "rms_norm_eps": 0)"));
  EXPECT_TRUE(fine.warnings.empty());
  EXPECT_EQ(fine.model.arch.rope->theta, 500000.0);
  EXPECT_EQ(fine.model.arch.norm_eps, 0.0);
}

// A nested config that transformers' Auto classes see rewritten (EncoderDecoderModel's encoder and decoder)
// is read from a document of its own: its warnings are still the model's. A null encoder depth was read as
// BERT's default 12 without a word.
TEST(ConfigValues, ANestedModelsWarningsAreTheModels) {
  const Built b = build(R"({"model_type": "encoder-decoder", "architectures": ["EncoderDecoderModel"],
    "encoder": {"model_type": "bert", "hidden_size": 64, "num_hidden_layers": null, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 100},
    "decoder": {"model_type": "bert", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 100, "is_decoder": true, "add_cross_attention": true}})");
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_EQ(b.warnings[0].rfind(
                "config.json: encoder.num_hidden_layers: is null: read as absent, the default 12", 0),
            0u)
      << b.warnings[0];
}

// None of the real configs of ../shared/data may start failing over these rules or warn: they hold null only
// for keys that have no value to give, and every dtype name, rotary base and eps they write is valid.
TEST(ConfigValues, EveryRealConfigBuildsWithoutConfigWarnings) {
  const auto data = shared_data();
  if (!data) GTEST_SKIP() << "../shared/data is absent";
  size_t checked = 0;
  for (const char* dir : {"hf-configs", "synthetic-configs", "fixtures"}) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(*data / dir, ec)) {
      const std::filesystem::path file = entry.path() / "config.json";
      if (!std::filesystem::is_regular_file(file)) continue;
      ++checked;
      try {
        const ModelConfig cfg = ModelConfig::parse(read_file(file), file.string());
        build_template(cfg);
        EXPECT_TRUE(cfg.warnings().empty()) << file << ": " << cfg.warnings().front();
      } catch (const Error& e) {
        // Models this tool does not build are not this test's business; a refusal by the new rules is.
        for (const char* field :
             {"torch_dtype", "dtype", "rope_theta", "rotary_emb_base", "rope_local_base_freq", "JSON"}) {
          const std::string f = e.field();
          EXPECT_FALSE(f == field || f.ends_with(std::string(".") + field)) << file << ": " << e.what();
        }
      }
    }
  }
  EXPECT_GE(checked, 130u) << "the reference configs were expected here";
}

}  // namespace
}  // namespace ma::test
