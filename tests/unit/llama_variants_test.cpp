// The Llama-layout families of model/families/llama_variants.cpp (and Cohere2): what each adds to or drops
// from Llama's layer, on configs written here. hf_twin_llama_oracle_test.cpp holds the same builders against
// llama.cpp's count of the same sizes, published_sizes_test.cpp against their model pages.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kSmallDecoder = R"("hidden_size":64,"intermediate_size":96,"num_hidden_layers":8,
    "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100)";

std::string small_decoder(const std::string& model_type, const std::string& extra = "") {
  return "{\"model_type\":\"" + model_type + "\"," + kSmallDecoder + (extra.empty() ? "" : "," + extra) + "}";
}

std::vector<uint64_t> windows_of(const ModelTemplate& t) {
  std::vector<uint64_t> w;
  for (const LayerSpec& l : t.arch.layers()) w.push_back(l.attention.window);
  return w;
}

TEST(LlamaVariants, OlmoNormsHoldNoParameters) {
  const ModelTemplate t = template_of(small_decoder("olmo"));
  for (const TemplateTensor& x : t.tensors) EXPECT_EQ(x.name.find("norm"), std::string::npos) << x.name;
  EXPECT_EQ(t.arch.norm, NormKind::LayerNorm);
  // Per layer q, o (64 x 64), k, v (32 x 64) and a gated MLP (3 x 64 x 96); embedding and head 100 x 64.
  uint64_t parameters = 0;
  for (const TemplateTensor& x : t.tensors)
    parameters += x.kind == TensorKind::Parameter ? numel(x.shape) : 0;
  EXPECT_EQ(parameters, 8 * (2 * 64 * 64 + 2 * 32 * 64 + 3 * 64 * 96) + 2 * 100 * 64);
}

TEST(LlamaVariants, ApertusXieluLearnsTwoScalarsAndSavesTwoBuffers) {
  const ModelTemplate t = template_of(small_decoder("apertus"));
  const std::string mlp = "model.layers.0.mlp.";
  EXPECT_EQ(find_tensor(t, mlp + "gate_proj.weight"), nullptr);
  ASSERT_NE(find_tensor(t, mlp + "up_proj.weight"), nullptr);
  for (const char* p : {"alpha_p", "alpha_n"}) {
    const TemplateTensor* x = find_tensor(t, mlp + "act_fn." + p);
    ASSERT_NE(x, nullptr) << p;
    EXPECT_EQ(x->shape, Shape({1}));
    EXPECT_EQ(x->kind, TensorKind::Parameter);
  }
  for (const char* b : {"beta", "eps"}) {
    const TemplateTensor* x = find_tensor(t, mlp + "act_fn." + b);
    ASSERT_NE(x, nullptr) << b;
    EXPECT_EQ(x->shape, Shape{});
    EXPECT_EQ(x->kind, TensorKind::Buffer);
  }
  ASSERT_NE(find_tensor(t, "model.layers.0.attention_layernorm.weight"), nullptr);
  ASSERT_NE(find_tensor(t, "model.layers.0.self_attn.q_norm.weight"), nullptr);
  // Another activation has no parameters.
  EXPECT_EQ(
      find_tensor(template_of(small_decoder("apertus", R"("hidden_act":"relu2")")), mlp + "act_fn.alpha_p"),
      nullptr);
}

TEST(LlamaVariants, HunyuanNamesItsPerHeadNorms) {
  const ModelTemplate t = template_of(small_decoder("hunyuan_v1_dense", R"("head_dim":16)"));
  const TemplateTensor* q = find_tensor(t, "model.layers.0.self_attn.query_layernorm.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->shape, Shape({16}));
  EXPECT_NE(find_tensor(t, "model.layers.0.self_attn.key_layernorm.weight"), nullptr);
}

TEST(LlamaVariants, NemotronNormsCarryBiasesAndItsMlpNoGate) {
  const ModelTemplate t = template_of(small_decoder("nemotron"));
  EXPECT_NE(find_tensor(t, "model.layers.0.input_layernorm.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.norm.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(t.arch.norm, NormKind::LayerNorm);
}

TEST(LlamaVariants, HeliumRefusesHeadsThatDoNotSpanTheHiddenSize) {
  EXPECT_NO_THROW(template_of(small_decoder("helium", R"("head_dim":16)")));
  try {
    template_of(small_decoder("helium", R"("head_dim":32)"));
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("head_dim"), std::string::npos) << e.what();
  }
  // o_proj never has a bias, q/k/v follow attention_bias.
  const ModelTemplate t = template_of(small_decoder("helium", R"("head_dim":16,"attention_bias":true)"));
  EXPECT_NE(find_tensor(t, "model.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.o_proj.bias"), nullptr);
}

TEST(LlamaVariants, SeedOssBiasesOProjOnItsOwnFlag) {
  const ModelTemplate t = template_of(small_decoder("seed_oss", R"("head_dim":16)"));
  EXPECT_NE(find_tensor(t, "model.layers.0.self_attn.k_proj.bias"),
            nullptr);  // attention_bias: true by default
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(template_of(small_decoder("seed_oss", R"("head_dim":16,"attention_out_bias":true)")),
                        "model.layers.0.self_attn.o_proj.bias"),
            nullptr);
}

TEST(LlamaVariants, ErnieUseBiasBiasesEveryProjection) {
  const ModelTemplate t = template_of(small_decoder("ernie4_5", R"("head_dim":16,"use_bias":true)"));
  for (const char* p : {"self_attn.q_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.down_proj"})
    EXPECT_NE(find_tensor(t, std::string("model.layers.0.") + p + ".bias"), nullptr) << p;
}

TEST(LlamaVariants, PostNormFamiliesHaveNoInputNorm) {
  for (const char* type : {"olmo3", "exaone4"}) {
    const ModelTemplate t = template_of(small_decoder(type));
    EXPECT_EQ(find_tensor(t, "model.layers.0.input_layernorm.weight"), nullptr) << type;
    EXPECT_NE(find_tensor(t, "model.layers.0.post_feedforward_layernorm.weight"), nullptr) << type;
  }
  // OLMo 3 normalises q and k over the whole projection, EXAONE 4 per head.
  EXPECT_EQ(find_tensor(template_of(small_decoder("olmo3")), "model.layers.0.self_attn.k_norm.weight")->shape,
            Shape({32}));
  EXPECT_EQ(
      find_tensor(template_of(small_decoder("exaone4")), "model.layers.0.self_attn.k_norm.weight")->shape,
      Shape({16}));
}

TEST(LlamaVariants, Glm4NormsEachHalfBeforeAndAfter) {
  const ModelTemplate t = template_of(small_decoder("glm4", R"("head_dim":16)"));
  for (const char* n :
       {"input_layernorm", "post_self_attn_layernorm", "post_attention_layernorm", "post_mlp_layernorm"})
    EXPECT_NE(find_tensor(t, std::string("model.layers.0.") + n + ".weight"), nullptr) << n;
  // Glm4DecoderLayer registers post_attention_layernorm (the MLP's input norm) before
  // post_self_attn_layernorm.
  EXPECT_LT(tensor_index(t, "model.layers.0.post_attention_layernorm.weight"),
            tensor_index(t, "model.layers.0.post_self_attn_layernorm.weight"));
  EXPECT_NE(find_tensor(t, "model.layers.0.mlp.gate_up_proj.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.0.self_attn.v_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(template_of(small_decoder("glm", R"("head_dim":16)")),
                        "model.layers.0.post_mlp_layernorm.weight"),
            nullptr);
}

TEST(LlamaVariants, WindowsFollowEachFamilysRule) {
  constexpr uint64_t w = 512;
  // OLMo 3 and Cohere2: every fourth layer attends fully.
  const std::vector<uint64_t> fourth{w, w, w, 0, w, w, w, 0};
  EXPECT_EQ(windows_of(template_of(small_decoder("olmo3", R"("sliding_window":512)"))), fourth);
  EXPECT_EQ(windows_of(template_of(small_decoder("cohere2", R"("sliding_window":512)"))), fourth);
  EXPECT_EQ(
      windows_of(template_of(small_decoder("cohere2", R"("sliding_window":512,"sliding_window_pattern":2)"))),
      (std::vector<uint64_t>{w, 0, w, 0, w, 0, w, 0}));
  // EXAONE 4: a pattern count or string, nothing when sliding_window is null.
  EXPECT_EQ(windows_of(template_of(small_decoder("exaone4", R"("sliding_window":512)"))), fourth);
  EXPECT_EQ(windows_of(template_of(
                small_decoder("exaone4", R"("sliding_window":512,"sliding_window_pattern":"LLG")"))),
            (std::vector<uint64_t>{w, w, 0, w, w, 0, w, w}));
  EXPECT_EQ(windows_of(template_of(small_decoder("exaone4", R"("sliding_window":null)"))),
            std::vector<uint64_t>(8, 0));
  // SmolLM3: only with use_sliding_window, and only on the layers that keep rotary embeddings.
  EXPECT_EQ(windows_of(template_of(small_decoder("smollm3", R"("sliding_window":512)"))),
            std::vector<uint64_t>(8, 0));
  EXPECT_EQ(
      windows_of(template_of(small_decoder("smollm3", R"("sliding_window":512,"use_sliding_window":true)"))),
      fourth);
  EXPECT_EQ(windows_of(template_of(small_decoder("smollm3", R"("sliding_window":512,"use_sliding_window":true,
      "no_rope_layers":[1,0,1,1,1,1,1,0])"))),
            (std::vector<uint64_t>{w, 0, w, w, w, w, w, 0}));
}

TEST(LlamaVariants, StableLmNormsEachHeadAndMaySkipTheSecondNorm) {
  const ModelTemplate t =
      template_of(small_decoder("stablelm", R"("qk_layernorm":true,"use_qkv_bias":true)"));
  // One bias-free LayerNorm per query head (4) and per K/V head (2), each head_dim (16) wide.
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_layernorm.norms.3.weight")->shape, Shape({16}));
  EXPECT_NE(find_tensor(t, "model.layers.0.self_attn.k_layernorm.norms.1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.k_layernorm.norms.2.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_layernorm.norms.0.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.0.post_attention_layernorm.bias"), nullptr);
  const ModelTemplate parallel = template_of(small_decoder("stablelm", R"("use_parallel_residual":true)"));
  EXPECT_EQ(find_tensor(parallel, "model.layers.0.post_attention_layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(parallel, "model.layers.0.input_layernorm.bias"), nullptr);
}

TEST(LlamaVariants, Cohere2HeadWidthIsAlwaysHiddenOverHeads) {
  EXPECT_EQ(template_of(small_decoder("cohere2", R"("head_dim":128)")).arch.head_dim, 16u);
}

}  // namespace
}  // namespace ma::test
