// The mixture-of-experts families added beside Mixtral's and DeepSeek's builders: what each stores where, in
// memory (transformers 5's names) and in Hub checkpoints, on configs written here. Their counts are checked
// against llama.cpp (hf_twin_llama_oracle_test.cpp) and their model pages (published_sizes_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

constexpr const char* kSmallMoe = R"("hidden_size":64,"intermediate_size":96,"num_hidden_layers":3,
    "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100)";

std::string small_moe(const std::string& model_type, const std::string& extra) {
  return "{\"model_type\":\"" + model_type + "\"," + kSmallMoe + "," + extra + "}";
}

TEST(MoeFamilies, PhimoeRoutesThroughMlpRouterStoredAsMixtralsGate) {
  const ModelTemplate t = template_of(small_moe("phimoe", R"("num_local_experts":4,"lm_head_bias":true)"));
  const TemplateTensor* router = find_tensor(t, "model.layers.0.mlp.router.weight");
  ASSERT_NE(router, nullptr);
  EXPECT_EQ(stored_name(*router), "model.layers.0.block_sparse_moe.gate.weight");
  const TemplateTensor* experts = find_tensor(t, "model.layers.0.mlp.experts.gate_up_proj");
  ASSERT_NE(experts, nullptr);
  ASSERT_TRUE(experts->per_expert);
  EXPECT_EQ(experts->per_expert->name(3, 0), "model.layers.0.block_sparse_moe.experts.3.w1.weight");
  // nn.LayerNorm with its bias everywhere, and the head's bias.
  EXPECT_NE(find_tensor(t, "model.layers.2.post_attention_layernorm.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.norm.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "lm_head.bias"), nullptr);
  EXPECT_EQ(t.arch.norm, NormKind::LayerNorm);
}

TEST(MoeFamilies, ErnieRoutesFromItsStartLayerWithAParameterScoreBias) {
  const ModelTemplate t = template_of(small_moe("ernie4_5_moe", R"("moe_num_experts":8,"moe_k":2,
      "moe_intermediate_size":32,"moe_num_shared_experts":2,"use_bias":true)"));
  // moe_layer_start_index 1: layer 0 is dense, with use_bias's biases.
  EXPECT_NE(find_tensor(t, "model.layers.0.mlp.gate_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate.weight"), nullptr);
  const TemplateTensor* bias = find_tensor(t, "model.layers.1.mlp.gate.moe_statics.e_score_correction_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->shape, Shape({1, 8}));
  EXPECT_EQ(bias->kind, TensorKind::Parameter);
  EXPECT_EQ(stored_name(*bias), "model.layers.1.mlp.moe_statics.e_score_correction_bias");
  // Two shared experts as one plain MLP of twice the expert width, biased too; the experts never are.
  const TemplateTensor* shared = find_tensor(t, "model.layers.1.mlp.shared_experts.up_proj.weight");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->shape, Shape({64, 64}));
  EXPECT_NE(find_tensor(t, "model.layers.1.mlp.shared_experts.up_proj.bias"), nullptr);
  EXPECT_EQ(t.arch.layers()[0].ffn.kind, Ffn::Dense);
  EXPECT_EQ(t.arch.layers()[2].ffn.kind, Ffn::Moe);
  EXPECT_EQ(t.arch.layers()[2].ffn.shared_intermediate, 64u);
  EXPECT_TRUE(t.arch.tie_word_embeddings);  // Ernie4_5_MoeConfig's default
  // moe_layer_end_index and moe_layer_interval narrow the routed layers.
  const ModelTemplate narrow = template_of(small_moe("ernie4_5_moe", R"("moe_num_experts":8,"moe_k":2,
      "moe_layer_start_index":0,"moe_layer_end_index":1,"moe_layer_interval":2)"));
  EXPECT_EQ(narrow.arch.layers()[0].ffn.kind, Ffn::Dense);
  EXPECT_EQ(narrow.arch.layers()[1].ffn.kind, Ffn::Moe);
  EXPECT_EQ(narrow.arch.layers()[2].ffn.kind, Ffn::Dense);
}

TEST(MoeFamilies, Dots1IsDeepSeeksMixtureUnderQkNormedAttention) {
  const ModelTemplate t = template_of(small_moe("dots1", R"("head_dim":16,"n_routed_experts":8,
      "num_experts_per_tok":2,"n_shared_experts":2,"moe_intermediate_size":32,"first_k_dense_replace":1)"));
  EXPECT_NE(find_tensor(t, "model.layers.0.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate.weight"), nullptr);
  const TemplateTensor* bias = find_tensor(t, "model.layers.1.mlp.gate.e_score_correction_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.shared_experts.down_proj.weight")->shape, Shape({64, 64}));
  // Dots1Config leaves the expert counts null: a config without them cannot route.
  EXPECT_THROW(template_of(small_moe("dots1", R"("head_dim":16)")), Error);
}

TEST(MoeFamilies, GraniteMoeSharedAddsItsSharedMlpBesideTheExperts) {
  const ModelTemplate t = template_of(small_moe("granitemoeshared", R"("num_local_experts":4,
      "shared_intermediate_size":48)"));
  EXPECT_EQ(find_tensor(t, "model.layers.0.shared_mlp.input_linear.weight")->shape, Shape({96, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.shared_mlp.output_linear.weight")->shape, Shape({64, 48}));
  EXPECT_EQ(t.arch.layers()[0].ffn.kind, Ffn::Moe);
  EXPECT_EQ(t.arch.layers()[0].ffn.shared_intermediate, 48u);
  // shared_intermediate_size 0 (the default): GraniteMoE's tensors exactly.
  const ModelTemplate none = template_of(small_moe("granitemoeshared", R"("num_local_experts":4)"));
  const ModelTemplate plain = template_of(small_moe("granitemoe", R"("num_local_experts":4)"));
  ASSERT_EQ(none.tensors.size(), plain.tensors.size());
  for (size_t i = 0; i < none.tensors.size(); ++i) EXPECT_EQ(none.tensors[i].name, plain.tensors[i].name);
}

TEST(MoeFamilies, LagunaGivesEachLayerItsOwnHeadsAndAGatePerHead) {
  const ModelTemplate t = template_of(small_moe("laguna", R"("head_dim":16,"num_experts":8,
      "num_experts_per_tok":2,"moe_intermediate_size":32,"shared_expert_intermediate_size":24,
      "num_attention_heads_per_layer":[4,6,4],"mlp_layer_types":["dense","sparse","sparse"],
      "layer_types":["full_attention","sliding_attention","full_attention"],"sliding_window":8)"));
  // Layer 1 runs 6 query heads: q_proj, o_proj and the softplus gate g_proj are sized by them; k/v by 2.
  EXPECT_EQ(find_tensor(t, "model.layers.1.self_attn.q_proj.weight")->shape, Shape({96, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.self_attn.o_proj.weight")->shape, Shape({64, 96}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.self_attn.g_proj.weight")->shape, Shape({6, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.g_proj.weight")->shape, Shape({4, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.self_attn.k_proj.weight")->shape, Shape({32, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.self_attn.q_norm.weight")->shape, Shape({16}));
  EXPECT_EQ(t.arch.layers()[1].attention.heads, 6u);
  EXPECT_EQ(t.arch.layers()[1].attention.window, 8u);
  EXPECT_EQ(t.arch.layers()[2].attention.heads, 4u);
  EXPECT_EQ(t.arch.layers()[2].attention.window, 0u);
  // Layer 0 is dense (intermediate_size); the others route, with a shared MLP Hub checkpoints call
  // shared_expert, and the router's score bias a parameter they keep under experts.
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate_proj.weight")->shape, Shape({96, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate.weight"), nullptr);
  const TemplateTensor* bias = find_tensor(t, "model.layers.1.mlp.gate.e_score_correction_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->kind, TensorKind::Parameter);
  EXPECT_EQ(stored_name(*bias), "model.layers.1.mlp.experts.e_score_correction_bias");
  const TemplateTensor* shared = find_tensor(t, "model.layers.2.mlp.shared_experts.up_proj.weight");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->shape, Shape({24, 64}));
  EXPECT_EQ(stored_name(*shared), "model.layers.2.mlp.shared_expert.up_proj.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.layers.2.self_attn.q_proj.weight")),
            "model.layers.2.self_attn.q_proj.weight");
  EXPECT_EQ(t.arch.layers()[1].ffn.shared_intermediate, 24u);
  // LagunaConfig's defaults: the first layer dense, every layer full attention with num_attention_heads.
  const ModelTemplate plain = template_of(small_moe("laguna", R"("head_dim":16,"num_experts":8)"));
  EXPECT_EQ(plain.arch.layers()[0].ffn.kind, Ffn::Dense);
  EXPECT_EQ(plain.arch.layers()[2].ffn.kind, Ffn::Moe);
  EXPECT_EQ(plain.arch.layers()[2].attention.heads, 4u);
  EXPECT_EQ(plain.arch.layers()[2].attention.window, 0u);
  // A per-layer list of the wrong length, or a head count the key/value heads do not divide, is refused.
  EXPECT_THROW(template_of(small_moe("laguna", R"("num_attention_heads_per_layer":[4,4])")), Error);
  EXPECT_THROW(template_of(small_moe("laguna", R"("num_attention_heads_per_layer":[4,5,4])")), Error);
  EXPECT_THROW(template_of(small_moe("laguna", R"("mlp_layer_types":["dense","moe","sparse"])")), Error);
}

TEST(MoeFamilies, AfmoeGatesEveryOutputElementAndNormsBothSidesOfTheMlp) {
  const ModelTemplate t = template_of(small_moe("afmoe", R"("head_dim":16,"num_experts":8,
      "num_experts_per_tok":2,"moe_intermediate_size":32,"num_shared_experts":2,"num_dense_layers":1,
      "global_attn_every_n_layers":3,"sliding_window":8,"attention_bias":true)"));
  // A sigmoid gate the width of the attention output; AfmoeConfig has no biases whatever the file says.
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.gate_proj.weight")->shape, Shape({64, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_norm.weight")->shape, Shape({16}));
  for (const char* norm :
       {"input_layernorm", "post_attention_layernorm", "pre_mlp_layernorm", "post_mlp_layernorm"})
    EXPECT_NE(find_tensor(t, std::string("model.layers.2.") + norm + ".weight"), nullptr) << norm;
  // num_dense_layers dense layers, then the router under mlp.router.gate, its score bias a parameter of the
  // block, and the shared experts as one MLP of their summed width.
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.up_proj.weight")->shape, Shape({96, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.router.gate.weight")->shape, Shape({8, 64}));
  const TemplateTensor* bias = find_tensor(t, "model.layers.1.mlp.expert_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->kind, TensorKind::Parameter);
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.shared_experts.up_proj.weight")->shape, Shape({64, 64}));
  EXPECT_EQ(t.arch.layers()[1].ffn.shared_intermediate, 64u);
  // Every global_attn_every_n_layers-th layer attends fully.
  EXPECT_EQ(t.arch.layers()[0].attention.window, 8u);
  EXPECT_EQ(t.arch.layers()[1].attention.window, 8u);
  EXPECT_EQ(t.arch.layers()[2].attention.window, 0u);
}

TEST(MoeFamilies, HunyuanMoeSizesExpertsAndSharedMlpByIntermediateSize) {
  const ModelTemplate t = template_of(small_moe("hunyuan_v1_moe", R"("head_dim":16,"num_experts":8,
      "moe_topk":[2,2,2],"moe_intermediate_size":[32,32,32],"num_shared_expert":[2,2,2])"));
  // transformers reads neither moe_intermediate_size nor num_shared_expert.
  const TemplateTensor* experts = find_tensor(t, "model.layers.0.mlp.experts.gate_up_proj");
  ASSERT_NE(experts, nullptr);
  EXPECT_EQ(experts->shape, Shape({8, 192, 64}));
  EXPECT_EQ(experts->per_expert->name(7, 0), "model.layers.0.mlp.experts.7.gate_proj.weight");
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.shared_mlp.up_proj.weight")->shape, Shape({96, 64}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate.wg.weight")->shape, Shape({8, 64}));
  EXPECT_NE(find_tensor(t, "model.layers.2.self_attn.query_layernorm.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "model.layers.2.self_attn.key_layernorm.weight"), nullptr);
  EXPECT_EQ(t.arch.experts_per_token, 2u);
  EXPECT_EQ(t.arch.layers()[1].ffn.shared_intermediate, 96u);
  // A top-k that differs by layer cannot be one record's; a list of the wrong length is refused too.
  EXPECT_THROW(template_of(small_moe("hunyuan_v1_moe", R"("num_experts":8,"moe_topk":[2,4,2])")), Error);
  EXPECT_THROW(template_of(small_moe("hunyuan_v1_moe", R"("num_experts":8,"moe_topk":[2,2])")), Error);
  EXPECT_THROW(template_of(small_moe("hunyuan_v1_moe", R"("num_experts":2,"moe_topk":4)")), Error);
}

// GLM-4.7-Flash's config.json (the fields a count depends on): the checkpoint lists 9,703 tensors of
// 31,221,488,576 elements, the multi-token-prediction layer 47 included; transformers builds 29,943,390,976
// (the card's "30B-A3B") and skips that layer.
constexpr const char* kGlm47Flash = R"({"model_type":"glm4_moe_lite","vocab_size":154880,"hidden_size":2048,
    "intermediate_size":10240,"moe_intermediate_size":1536,"num_hidden_layers":47,"num_attention_heads":20,
    "num_key_value_heads":20,"n_shared_experts":1,"n_routed_experts":64,"num_experts_per_tok":4,
    "first_k_dense_replace":1,"num_nextn_predict_layers":1,"q_lora_rank":768,"kv_lora_rank":512,
    "qk_nope_head_dim":192,"qk_rope_head_dim":64,"v_head_dim":256,"tie_word_embeddings":false})";

TEST(MoeFamilies, Glm47FlashIsLatentAttentionInGlmsMixture) {
  EXPECT_EQ(parameters_of(kGlm47Flash), 29'943'390'976u);
  const ModelTemplate t = template_of(kGlm47Flash);
  const DiskTotals stored = disk_totals(t);
  EXPECT_EQ(stored.tensors, 9'703u);
  EXPECT_EQ(stored.elements, 31'221'488'576u);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_b_proj.weight")->shape, Shape({20 * 256, 768}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.kv_b_proj.weight")->shape,
            Shape({20 * (192 + 256), 512}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate.weight"), nullptr);  // the one dense layer
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.shared_experts.up_proj.weight")->shape, Shape({1536, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.47.eh_proj.weight")->kind, TensorKind::Extra);
  // Glm4MoeLiteConfig reads the dense layers from mlp_layer_types alone: first_k_dense_replace is ignored.
  const ModelTemplate three = template_of(R"({"model_type":"glm4_moe_lite","num_hidden_layers":4,
      "first_k_dense_replace":3})");
  EXPECT_EQ(three.arch.layers()[1].ffn.kind, Ffn::Moe);
}

}  // namespace
}  // namespace ma::test
