// The Llama-layout families of model/families/llama_variants.cpp (and Cohere2): their counts on the configs
// their model cards publish, against the sizes those cards state, and what each adds to or drops from
// Llama's layer, on configs written here. hf_twin_llama_oracle_test.cpp holds the same builders against
// llama.cpp's count of the same sizes.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/parameter_counts.h"
#include "core/error.h"
#include "formats/model_files.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "test_support.h"

namespace ma::test {
namespace {

ModelTemplate build(const std::string& json) {
  return build_template(ModelConfig::parse(json, "config.json"));
}

uint64_t parameters_of(const std::string& json) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << json;
  return count_parameters(build_inventory(locate_local_model((dir.path() / "config.json").string()))).total;
}

// A count as the Hub's model pages state it: three significant digits ("8.17B", "361M").
std::string three_digits(uint64_t n) {
  char out[32];
  const double b = static_cast<double>(n) / 1e9;
  if (b >= 100)
    std::snprintf(out, sizeof out, "%.0fB", b);
  else if (b >= 10)
    std::snprintf(out, sizeof out, "%.1fB", b);
  else if (b >= 1)
    std::snprintf(out, sizeof out, "%.2fB", b);
  else
    std::snprintf(out, sizeof out, "%.0fM", b * 1e3);
  return out;
}

// Sizes as each model's config.json on the Hub states them (the fields a count depends on), and the size its
// model page gives. Written by hand, not computed here.
struct Published {
  const char* model;
  const char* config;
  const char* size;
};
constexpr Published kPublished[] = {
    {"ibm-granite/granite-3.1-8b-instruct",
     R"({"model_type":"granite","hidden_size":4096,"intermediate_size":12800,"num_hidden_layers":40,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":49155,"tie_word_embeddings":true})",
     "8.17B"},
    {"HuggingFaceTB/SmolLM3-3B",
     R"({"model_type":"smollm3","hidden_size":2048,"intermediate_size":11008,"num_hidden_layers":36,
         "num_attention_heads":16,"num_key_value_heads":4,"vocab_size":128256,"tie_word_embeddings":true})",
     "3.08B"},
    {"THUDM/GLM-4-9B-0414",
     R"({"model_type":"glm4","hidden_size":4096,"intermediate_size":13696,"num_hidden_layers":40,
         "num_attention_heads":32,"num_key_value_heads":2,"head_dim":128,"vocab_size":151552,
         "attention_bias":true,"tie_word_embeddings":false})",
     "9.40B"},
    {"CohereLabs/c4ai-command-r7b-12-2024",
     R"({"model_type":"cohere2","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":256000,"sliding_window":4096})",
     "8.03B"},
    {"swiss-ai/Apertus-8B-2509",
     R"({"model_type":"apertus","hidden_size":4096,"intermediate_size":21504,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8,"vocab_size":131072,"hidden_act":"xielu"})",
     "8.05B"},
    {"LGAI-EXAONE/EXAONE-4.0-1.2B",
     R"({"model_type":"exaone4","hidden_size":2048,"intermediate_size":4096,"num_hidden_layers":30,
         "num_attention_heads":32,"num_key_value_heads":8,"head_dim":64,"vocab_size":102400,
         "tie_word_embeddings":true,"sliding_window":null})",
     "1.28B"},
    {"allenai/OLMo-7B-hf",
     R"({"model_type":"olmo","hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,
         "num_attention_heads":32,"vocab_size":50304})",
     "6.89B"},
    {"nvidia/Minitron-4B-Base",
     R"({"model_type":"nemotron","hidden_size":3072,"intermediate_size":9216,"num_hidden_layers":32,
         "num_attention_heads":24,"num_key_value_heads":8,"head_dim":128,"vocab_size":256000})",
     "4.19B"},
    {"ByteDance-Seed/Seed-OSS-36B-Instruct",
     R"({"model_type":"seed_oss","hidden_size":5120,"intermediate_size":27648,"num_hidden_layers":64,
         "num_attention_heads":80,"num_key_value_heads":8,"head_dim":128,"vocab_size":155136,
         "attention_bias":true,"attention_out_bias":false})",
     "36.2B"},
    {"baidu/ERNIE-4.5-0.3B-PT",
     R"({"model_type":"ernie4_5","hidden_size":1024,"intermediate_size":3072,"num_hidden_layers":18,
         "num_attention_heads":16,"num_key_value_heads":2,"head_dim":128,"vocab_size":103424,
         "tie_word_embeddings":true,"use_bias":false})",
     "361M"},
};

TEST(LlamaVariants, CountsAreThePublishedSizes) {
  for (const Published& p : kPublished) EXPECT_EQ(three_digits(parameters_of(p.config)), p.size) << p.model;
}

const TemplateTensor* find(const ModelTemplate& t, const std::string& name) {
  for (const TemplateTensor& x : t.tensors)
    if (x.name == name) return &x;
  return nullptr;
}

constexpr const char* kSmall = R"("hidden_size":64,"intermediate_size":96,"num_hidden_layers":8,
    "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100)";

std::string small(const std::string& model_type, const std::string& extra = "") {
  return "{\"model_type\":\"" + model_type + "\"," + kSmall + (extra.empty() ? "" : "," + extra) + "}";
}

std::vector<uint64_t> windows_of(const ModelTemplate& t) {
  std::vector<uint64_t> w;
  for (const LayerSpec& l : t.arch.layers()) w.push_back(l.attention.window);
  return w;
}

TEST(LlamaVariants, OlmoNormsHoldNoParameters) {
  const ModelTemplate t = build(small("olmo"));
  for (const TemplateTensor& x : t.tensors) EXPECT_EQ(x.name.find("norm"), std::string::npos) << x.name;
  EXPECT_EQ(t.arch.norm, NormKind::LayerNorm);
  // Per layer q, o (64 x 64), k, v (32 x 64) and a gated MLP (3 x 64 x 96); embedding and head 100 x 64.
  EXPECT_EQ(parameters_of(small("olmo")), 8 * (2 * 64 * 64 + 2 * 32 * 64 + 3 * 64 * 96) + 2 * 100 * 64);
}

TEST(LlamaVariants, ApertusXieluLearnsTwoScalarsAndSavesTwoBuffers) {
  const ModelTemplate t = build(small("apertus"));
  const std::string mlp = "model.layers.0.mlp.";
  EXPECT_EQ(find(t, mlp + "gate_proj.weight"), nullptr);
  ASSERT_NE(find(t, mlp + "up_proj.weight"), nullptr);
  for (const char* p : {"alpha_p", "alpha_n"}) {
    const TemplateTensor* x = find(t, mlp + "act_fn." + p);
    ASSERT_NE(x, nullptr) << p;
    EXPECT_EQ(x->shape, Shape({1}));
    EXPECT_EQ(x->kind, TensorKind::Parameter);
  }
  for (const char* b : {"beta", "eps"}) {
    const TemplateTensor* x = find(t, mlp + "act_fn." + b);
    ASSERT_NE(x, nullptr) << b;
    EXPECT_EQ(x->shape, Shape{});
    EXPECT_EQ(x->kind, TensorKind::Buffer);
  }
  ASSERT_NE(find(t, "model.layers.0.attention_layernorm.weight"), nullptr);
  ASSERT_NE(find(t, "model.layers.0.self_attn.q_norm.weight"), nullptr);
  // Another activation has no parameters.
  EXPECT_EQ(find(build(small("apertus", R"("hidden_act":"relu2")")), mlp + "act_fn.alpha_p"), nullptr);
}

TEST(LlamaVariants, HunyuanNamesItsPerHeadNorms) {
  const ModelTemplate t = build(small("hunyuan_v1_dense", R"("head_dim":16)"));
  const TemplateTensor* q = find(t, "model.layers.0.self_attn.query_layernorm.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->shape, Shape({16}));
  EXPECT_NE(find(t, "model.layers.0.self_attn.key_layernorm.weight"), nullptr);
}

TEST(LlamaVariants, NemotronNormsCarryBiasesAndItsMlpNoGate) {
  const ModelTemplate t = build(small("nemotron"));
  EXPECT_NE(find(t, "model.layers.0.input_layernorm.bias"), nullptr);
  EXPECT_NE(find(t, "model.norm.bias"), nullptr);
  EXPECT_EQ(find(t, "model.layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(t.arch.norm, NormKind::LayerNorm);
}

TEST(LlamaVariants, HeliumRefusesHeadsThatDoNotSpanTheHiddenSize) {
  EXPECT_NO_THROW(build(small("helium", R"("head_dim":16)")));
  try {
    build(small("helium", R"("head_dim":32)"));
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("head_dim"), std::string::npos) << e.what();
  }
  // o_proj never has a bias, q/k/v follow attention_bias.
  const ModelTemplate t = build(small("helium", R"("head_dim":16,"attention_bias":true)"));
  EXPECT_NE(find(t, "model.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find(t, "model.layers.0.self_attn.o_proj.bias"), nullptr);
}

TEST(LlamaVariants, SeedOssBiasesOProjOnItsOwnFlag) {
  const ModelTemplate t = build(small("seed_oss", R"("head_dim":16)"));
  EXPECT_NE(find(t, "model.layers.0.self_attn.k_proj.bias"), nullptr);  // attention_bias: true by default
  EXPECT_EQ(find(t, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_NE(find(build(small("seed_oss", R"("head_dim":16,"attention_out_bias":true)")),
                 "model.layers.0.self_attn.o_proj.bias"),
            nullptr);
}

TEST(LlamaVariants, ErnieUseBiasBiasesEveryProjection) {
  const ModelTemplate t = build(small("ernie4_5", R"("head_dim":16,"use_bias":true)"));
  for (const char* p : {"self_attn.q_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.down_proj"})
    EXPECT_NE(find(t, std::string("model.layers.0.") + p + ".bias"), nullptr) << p;
}

TEST(LlamaVariants, PostNormFamiliesHaveNoInputNorm) {
  for (const char* type : {"olmo3", "exaone4"}) {
    const ModelTemplate t = build(small(type));
    EXPECT_EQ(find(t, "model.layers.0.input_layernorm.weight"), nullptr) << type;
    EXPECT_NE(find(t, "model.layers.0.post_feedforward_layernorm.weight"), nullptr) << type;
  }
  // OLMo 3 normalises q and k over the whole projection, EXAONE 4 per head.
  EXPECT_EQ(find(build(small("olmo3")), "model.layers.0.self_attn.k_norm.weight")->shape, Shape({32}));
  EXPECT_EQ(find(build(small("exaone4")), "model.layers.0.self_attn.k_norm.weight")->shape, Shape({16}));
}

TEST(LlamaVariants, Glm4NormsEachHalfBeforeAndAfter) {
  const ModelTemplate t = build(small("glm4", R"("head_dim":16)"));
  for (const char* n : {"input_layernorm", "post_self_attn_layernorm", "post_attention_layernorm",
                        "post_mlp_layernorm"})
    EXPECT_NE(find(t, std::string("model.layers.0.") + n + ".weight"), nullptr) << n;
  EXPECT_NE(find(t, "model.layers.0.mlp.gate_up_proj.weight"), nullptr);
  EXPECT_NE(find(t, "model.layers.0.self_attn.v_proj.bias"), nullptr);
  EXPECT_EQ(find(t, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_EQ(find(build(small("glm", R"("head_dim":16)")), "model.layers.0.post_mlp_layernorm.weight"), nullptr);
}

TEST(LlamaVariants, WindowsFollowEachFamilysRule) {
  constexpr uint64_t w = 512;
  // OLMo 3 and Cohere2: every fourth layer attends fully.
  const std::vector<uint64_t> fourth{w, w, w, 0, w, w, w, 0};
  EXPECT_EQ(windows_of(build(small("olmo3", R"("sliding_window":512)"))), fourth);
  EXPECT_EQ(windows_of(build(small("cohere2", R"("sliding_window":512)"))), fourth);
  EXPECT_EQ(windows_of(build(small("cohere2", R"("sliding_window":512,"sliding_window_pattern":2)"))),
            (std::vector<uint64_t>{w, 0, w, 0, w, 0, w, 0}));
  // EXAONE 4: a pattern count or string, nothing when sliding_window is null.
  EXPECT_EQ(windows_of(build(small("exaone4", R"("sliding_window":512)"))), fourth);
  EXPECT_EQ(windows_of(build(small("exaone4", R"("sliding_window":512,"sliding_window_pattern":"LLG")"))),
            (std::vector<uint64_t>{w, w, 0, w, w, 0, w, w}));
  EXPECT_EQ(windows_of(build(small("exaone4", R"("sliding_window":null)"))), std::vector<uint64_t>(8, 0));
  // SmolLM3: only with use_sliding_window, and only on the layers that keep rotary embeddings.
  EXPECT_EQ(windows_of(build(small("smollm3", R"("sliding_window":512)"))), std::vector<uint64_t>(8, 0));
  EXPECT_EQ(windows_of(build(small("smollm3", R"("sliding_window":512,"use_sliding_window":true)"))), fourth);
  EXPECT_EQ(windows_of(build(small("smollm3", R"("sliding_window":512,"use_sliding_window":true,
      "no_rope_layers":[1,0,1,1,1,1,1,0])"))),
            (std::vector<uint64_t>{w, 0, w, w, w, w, w, 0}));
}

TEST(LlamaVariants, Cohere2HeadWidthIsAlwaysHiddenOverHeads) {
  EXPECT_EQ(build(small("cohere2", R"("head_dim":128)")).arch.head_dim, 16u);
}

}  // namespace
}  // namespace ma::test
