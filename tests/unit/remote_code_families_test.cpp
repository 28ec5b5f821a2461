// EXAONE 3, DeciLM, DeepSeek-MoE, MiniCPM3, NomicBERT and Ling 2.0: templates derived by hand from their
// repositories' modeling code (model/families/remote_code*.cpp, deepseek_like.cpp), counted on the configs
// those repositories publish and compared with the sizes their model cards state.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

std::string exaone(uint64_t hidden, uint64_t layers, uint64_t heads, uint64_t inter, const std::string& tie) {
  return R"({"model_type":"exaone","architectures":["ExaoneForCausalLM"],"hidden_size":)" +
         std::to_string(hidden) + R"(,"num_layers":)" + std::to_string(layers) +
         R"(,"num_attention_heads":)" + std::to_string(heads) +
         R"(,"num_key_value_heads":8,"intermediate_size":)" + std::to_string(inter) +
         R"(,"vocab_size":102400)" + tie + "}";
}

// The cards give each size without embeddings: EXAONE-3.5-2.4B "2.14B" (its config names no
// tie_word_embeddings: ExaoneConfig's default ties the head), 7.8B "6.98B" and 32B "30.95B" (untied: the
// embedding and the head both left out).
TEST(RemoteCodeFamilies, ExaoneCountsAsItsCardsState) {
  const ParameterCounts small = counts_of(exaone(2560, 30, 32, 7168, ""));
  EXPECT_EQ(small.total, 2'405'327'360u);
  EXPECT_EQ(small.non_embedding, 2'143'183'360u);
  EXPECT_EQ(
      parameters_of(exaone(4096, 32, 32, 14336, R"(,"tie_word_embeddings":false)")) - 2u * 102'400 * 4096,
      6'979'588'096u);
  EXPECT_EQ(
      parameters_of(exaone(5120, 64, 40, 27392, R"(,"tie_word_embeddings":false)")) - 2u * 102'400 * 5120,
      30'954'624'000u);
  const ModelTemplate t = template_of(exaone(2560, 30, 32, 7168, ""));
  EXPECT_TRUE(t.arch.hand_derived);
  EXPECT_EQ(find_tensor(t, "transformer.h.0.attn.attention.k_proj.weight")->shape, Shape({640, 2560}));
  EXPECT_EQ(find_tensor(t, "transformer.h.0.mlp.c_fc_0.weight")->shape, Shape({7168, 2560}));
  EXPECT_EQ(find_tensor(t, "transformer.h.0.attn.attention.out_proj.bias"), nullptr);
}

// Deci/DeciLM-7B: each layer's own key/value heads (the num_key_value_heads of 32 its config keeps is not
// read); "7.04 billion parameters" on its card.
TEST(RemoteCodeFamilies, DeciLmGivesEachLayerItsKeyValueHeads) {
  const std::string config = R"({"model_type":"deci","hidden_size":4096,"intermediate_size":14336,
      "num_attention_heads":32,"num_hidden_layers":32,"vocab_size":32000,"num_key_value_heads":32,
      "num_key_value_heads_per_layer":[4,4,4,4,4,2,2,2,2,2,4,2,2,2,2,2,2,2,2,2,1,1,1,1,1,1,1,1,1,1,1,4]})";
  EXPECT_EQ(parameters_of(config), 7'043'551'232u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.k_proj.weight")->shape, Shape({512, 4096}));
  EXPECT_EQ(find_tensor(t, "model.layers.20.self_attn.v_proj.weight")->shape, Shape({128, 4096}));
  EXPECT_EQ(t.arch.layers()[20].attention.kv_heads, 1u);
  EXPECT_THROW(
      template_of(R"({"model_type":"deci","num_hidden_layers":2,"num_key_value_heads_per_layer":[4]})"),
      Error);
  EXPECT_THROW(
      template_of(R"({"model_type":"deci","num_hidden_layers":1,"num_key_value_heads_per_layer":[5]})"),
      Error);
}

// deepseek-ai/deepseek-moe-16b-base: "16.4B" on its card (16.376B on the leaderboard), 2.8B activated per
// token (its paper). Layer 0 is dense; the others route six of 64 experts beside one shared MLP twice as
// wide.
TEST(RemoteCodeFamilies, DeepSeekMoe16bCountsAsPublished) {
  const std::string config = R"({"model_type":"deepseek","first_k_dense_replace":1,"hidden_size":2048,
      "intermediate_size":10944,"moe_intermediate_size":1408,"moe_layer_freq":1,"n_routed_experts":64,
      "n_shared_experts":2,"num_attention_heads":16,"num_experts_per_tok":6,"num_hidden_layers":28,
      "num_key_value_heads":16,"vocab_size":102400})";
  const ParameterCounts c = counts_of(config);
  EXPECT_EQ(c.total, 16'375'728'128u);
  ASSERT_TRUE(c.active);
  EXPECT_EQ(*c.active, 2'828'650'496u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate_proj.weight")->shape, Shape({10944, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.shared_experts.up_proj.weight")->shape, Shape({2816, 2048}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.gate.weight")->shape, Shape({64, 2048}));
  // moe_layer_freq: only the layers it divides route (transformers' DeepSeek-V2/V3 ignore it; this code not).
  const ModelTemplate every_other = template_of(R"({"model_type":"deepseek","num_hidden_layers":4,
      "hidden_size":64,"num_attention_heads":4,"intermediate_size":96,"moe_intermediate_size":32,
      "n_routed_experts":4,"num_experts_per_tok":2,"moe_layer_freq":2})");
  EXPECT_EQ(every_other.arch.layers()[2].ffn.kind, Ffn::Moe);
  EXPECT_EQ(every_other.arch.layers()[3].ffn.kind, Ffn::Dense);
  // The first DeepSeek-V2 upload said "deepseek" too: latent attention makes it V2.
  EXPECT_EQ(template_of(R"({"model_type":"deepseek","kv_lora_rank":512,"n_routed_experts":4,
      "num_experts_per_tok":2})")
                .arch.architecture,
            "DeepseekV2ForCausalLM");
}

// openbmb/MiniCPM3-4B: "4.07B params"; its 8.15 GB bf16 file holds the tied head once. Values are
// hidden / heads wide whatever v_head_dim says.
TEST(RemoteCodeFamilies, MiniCpm3IsLatentAttentionWithATiedHead) {
  const std::string config = R"({"model_type":"minicpm3","hidden_size":2560,"num_hidden_layers":62,
      "intermediate_size":6400,"num_attention_heads":40,"num_key_value_heads":40,"qk_nope_head_dim":64,
      "qk_rope_head_dim":32,"q_lora_rank":768,"kv_lora_rank":256,"vocab_size":73448,"head_dim":96})";
  EXPECT_EQ(parameters_of(config), 4'073'875'968u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.kv_b_proj.weight")->shape, Shape({5120, 256}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.q_b_proj.weight")->shape, Shape({3840, 768}));
  EXPECT_TRUE(t.arch.tie_word_embeddings);
  EXPECT_EQ(t.arch.layers()[0].attention.kind, AttentionKind::Mla);
}

// nomic-ai/nomic-embed-text-v1.5: "137M". Rotary positions (no position table), a bias-free fused Wqkv and
// SwiGLU MLP, post-norm.
TEST(RemoteCodeFamilies, NomicBertCountsAsPublished) {
  const std::string config = R"({"model_type":"nomic_bert","architectures":["NomicBertModel"],
      "activation_function":"swiglu","mlp_fc1_bias":false,"mlp_fc2_bias":false,"qkv_proj_bias":false,
      "n_embd":768,"n_head":12,"n_inner":3072,"n_layer":12,"n_positions":8192,"pad_vocab_size_multiple":64,
      "prenorm":false,"rotary_emb_fraction":1.0,"type_vocab_size":2,"vocab_size":30528})";
  EXPECT_EQ(parameters_of(config), 136'731'648u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(find_tensor(t, "encoder.layers.0.attn.Wqkv.weight")->shape, Shape({2304, 768}));
  EXPECT_EQ(find_tensor(t, "encoder.layers.0.attn.Wqkv.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "embeddings.position_embeddings.weight"), nullptr);
  EXPECT_NE(find_tensor(t, "emb_ln.bias"), nullptr);
  EXPECT_TRUE(t.arch.layers()[0].ffn.gated);
  EXPECT_TRUE(t.arch.post_norm);
}

std::string ling(const std::string& sizes) {
  return R"({"model_type":"bailing_moe","architectures":["BailingMoeV2ForCausalLM"])" + sizes + "}";
}

// inclusionAI/Ling-flash-2.0: the Hub's safetensors listing counts 102,889,697,280 BF16 and 7,936 F32 values,
// 102,889,705,216 in all; the float32 ones are the 31 routed layers' expert_bias buffers of 256, which the
// model's code saves but does not count as parameters. Its card: 6.1B activated. Ling-mini-2.0 (the config
// class's defaults): "16.26B total, 1.43B activated"; Ling-1T: 999.705B as llama.cpp loads it.
TEST(RemoteCodeFamilies, Ling2CountsAsItsCheckpointsHoldThem) {
  const std::string flash = ling(R"(,"hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,
      "num_key_value_heads":4,"intermediate_size":9216,"moe_intermediate_size":1024)");
  const ParameterCounts c = counts_of(flash);
  EXPECT_EQ(c.total, 102'889'697'280u);
  ASSERT_TRUE(c.active);
  EXPECT_EQ(*c.active / 100'000'000, 61u);
  const ModelTemplate t = template_of(flash);
  EXPECT_TRUE(t.arch.hand_derived);
  EXPECT_EQ(disk_totals(t).elements, 102'889'705'216u);
  uint64_t f32 = 0;
  for (const TemplateTensor& x : t.tensors)
    for (const DiskPiece& d : x.disk)
      if (d.dtype == DType::F32) f32 += numel(d.shape);
  EXPECT_EQ(f32, 7'936u);
  EXPECT_EQ(find_tensor(t, "model.layers.0.attention.query_key_value.weight")->shape, Shape({5120, 4096}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.attention.query_layernorm.weight")->shape, Shape({128}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.down_proj.weight")->shape, Shape({4096, 9216}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.shared_experts.up_proj.weight")->shape, Shape({1024, 4096}));
  EXPECT_EQ(find_tensor(t, "model.layers.1.mlp.gate.expert_bias")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "model.layers.0.mlp.gate.expert_bias"), nullptr);

  const ParameterCounts mini = counts_of(ling(""));
  EXPECT_EQ((mini.total + 19 * 256) / 10'000'000, 1'625u);
  ASSERT_TRUE(mini.active);
  EXPECT_EQ(*mini.active / 10'000'000, 143u);
  EXPECT_EQ(parameters_of(ling(R"(,"hidden_size":8192,"num_hidden_layers":80,"num_attention_heads":64,
      "num_key_value_heads":8,"intermediate_size":18432,"moe_intermediate_size":2048,
      "first_k_dense_replace":4)")) +
                76 * 256,
            999'705'328'640u);
}

// Base checkpoints carry a multi-token-prediction layer after the stack, which the model builds: Hub sizes
// Ling-mini-base-2.0 "17B" against 16B. Ling 1.0 shares the model_type but not the layout.
TEST(RemoteCodeFamilies, Ling2BaseBuildsItsNextTokenLayerAndLing1IsRefused) {
  const ModelTemplate base = template_of(ling(R"(,"num_nextn_predict_layers":1)"));
  const StackSpec* mtp = base.arch.stack(StackRole::Mtp);
  ASSERT_NE(mtp, nullptr);
  EXPECT_EQ(mtp->first_index, 20u);
  EXPECT_EQ(find_tensor(base, "model.layers.20.eh_proj.weight")->shape, Shape({2048, 4096}));
  EXPECT_EQ(find_tensor(base, "model.layers.20.final_layernorm.weight")->kind, TensorKind::Parameter);
  EXPECT_EQ(parameters_of(ling(R"(,"num_nextn_predict_layers":1)")) / 1'000'000'000, 17u);
  try {
    template_of(R"({"model_type":"bailing_moe","architectures":["BailingMoeForCausalLM"]})");
    FAIL() << "Ling 1.0 was built";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("BailingMoeForCausalLM"), std::string::npos);
  }
}

// microsoft/Phi-3.5-vision-instruct (and Phi-3-vision-128k-instruct, the same shapes): 4,146,621,440 as the
// Hub's safetensors metadata counts it (a public benchmark registry records it so), 592 tensors in two shards
// of 4.94 + 3.35 GB. Phi-3.5-mini's 3,821,079,552, the whole CLIP ViT-L/14-336 and the image projection.
TEST(RemoteCodeFamilies, Phi35VisionCountsAsItsCheckpointHoldsIt) {
  const std::string config = R"({"model_type":"phi3_v","architectures":["Phi3VForCausalLM"],
      "embd_layer":{"embedding_cls":"image","hd_transform_order":"sub_glb","projection_cls":"mlp",
      "use_hd_transform":true,"with_learnable_separator":true},"hidden_size":3072,"img_processor":{
      "image_dim_out":1024,"model_name":"openai/clip-vit-large-patch14-336","name":"clip_vision_model",
      "num_img_tokens":144},"intermediate_size":8192,"num_attention_heads":32,"num_hidden_layers":32,
      "num_key_value_heads":32,"tie_word_embeddings":false,"vocab_size":32064})";
  const ParameterCounts c = counts_of(config);
  EXPECT_EQ(c.total, 4'146'621'440u);
  EXPECT_EQ(c.total - c.towers, 3'821'079'552u);
  const ModelTemplate t = template_of(config);
  EXPECT_EQ(disk_totals(t).tensors, 592u);
  EXPECT_EQ(find_tensor(t, "model.vision_embed_tokens.wte.weight")->tied_to, "model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "model.vision_embed_tokens.sub_GN")->shape, Shape({1, 1, 1, 4096}));
  EXPECT_EQ(find_tensor(t, "model.vision_embed_tokens.img_projection.0.weight")->shape, Shape({3072, 4096}));
  EXPECT_NE(find_tensor(t, "model.vision_embed_tokens.img_processor.vision_model.post_layernorm.weight"),
            nullptr);
  // embd_layer "default": Phi-3 alone.
  EXPECT_EQ(parameters_of(R"({"model_type":"phi3_v","embd_layer":"default","hidden_size":3072,
      "intermediate_size":8192,"num_attention_heads":32,"num_hidden_layers":32,"vocab_size":32064})"),
            3'821'079'552u);
}

}  // namespace
}  // namespace ma::test
