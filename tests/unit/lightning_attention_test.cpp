// MiniMax-Text-01 / MiniMax-M1 (model/families/lightning_attention.cpp): lightning-attention layers among
// softmax ones, Mixtral's mixture in each, counted on the configuration MiniMax publishes and compared with
// its checkpoint index and published sizes.
#include <gtest/gtest.h>

#include <string>

#include "analysis/memory_kv.h"
#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// MiniMax-AI/MiniMax-M1's config.json (MiniMax-Text-01's has the same sizes), as the Hub's remote code reads
// it: seven lightning layers, then one softmax layer, ten times.
std::string m1_config(const std::string& model_type = "minimax_m1", const std::string& kinds = "") {
  std::string list = R"("attn_type_list":[)";
  for (int i = 0; i < 80; ++i) list += std::string(i ? "," : "") + (i % 8 == 7 ? "1" : "0");
  list += "]";
  return R"({"model_type":")" + model_type + R"(","head_dim":128,"hidden_size":6144,
      "intermediate_size":9216,"max_position_embeddings":10240000,"num_attention_heads":64,
      "num_experts_per_tok":2,"num_hidden_layers":80,"num_key_value_heads":8,"num_local_experts":32,
      "rotary_dim":64,"shared_intermediate_size":0,"tie_word_embeddings":false,"vocab_size":200064,
      "torch_dtype":"bfloat16",)" +
         (kinds.empty() ? list : kinds) + "}";
}

// Its model.safetensors.index.json lists 8,243 tensors of 912,210,767,872 bytes: every tensor in bf16 but the
// 80 routers (32 x 6,144), which are float32. A third-party table gives 456,089,655,296 parameters; the card
// "456B total, 45.9B activated" (the latter without the embedding and the head).
TEST(LightningAttention, MiniMaxM1CountsAsItsCheckpointHoldsIt) {
  const TempDir dir;
  std::ofstream(dir.path() / "config.json") << m1_config();
  const Inventory inv = build_inventory(locate_local_model((dir.path() / "config.json").string()));
  const ParameterCounts c = count_parameters(inv);
  EXPECT_EQ(c.total, 456'089'655'296u);
  ASSERT_TRUE(c.active);
  const uint64_t embedding_and_head = 2u * 200'064 * 6'144;
  EXPECT_EQ((*c.active - embedding_and_head) / 100'000'000, 459u);
  uint64_t stored = 0, bytes = 0;
  for (const InventoryTensor& x : inv.tensors) {
    stored += x.stored;
    bytes += x.bytes;
  }
  EXPECT_EQ(stored, 8'243u);
  EXPECT_EQ(bytes, 912'210'767'872u);
}

TEST(LightningAttention, LayersAreLightningOrSoftmaxAsTheConfigLists) {
  const ModelTemplate t = template_of(m1_config());
  EXPECT_EQ(t.arch.architecture, "MiniMaxM1ForCausalLM");
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.qkv_proj.weight")->shape, Shape({24576, 6144}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.output_gate.weight")->shape, Shape({8192, 6144}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.norm.weight")->shape, Shape({8192}));
  EXPECT_EQ(find_tensor(t, "model.layers.0.self_attn.k_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.layers.7.self_attn.k_proj.weight")->shape, Shape({1024, 6144}));
  EXPECT_EQ(find_tensor(t, "model.layers.7.self_attn.qkv_proj.weight"), nullptr);
  // transformers' decay tables: saved buffers no checkpoint stores, rebuilt when the model is built.
  const TemplateTensor* decay = find_tensor(t, "model.layers.0.self_attn.diagonal_decay");
  ASSERT_NE(decay, nullptr);
  EXPECT_EQ(decay->shape, Shape({1, 64, 256, 256}));
  EXPECT_EQ(decay->kind, TensorKind::Buffer);
  EXPECT_FALSE(decay->stored);
  const TemplateTensor* router = find_tensor(t, "model.layers.0.mlp.gate.weight");
  ASSERT_EQ(router->disk.size(), 1u);
  EXPECT_EQ(router->disk[0].name, "model.layers.0.block_sparse_moe.gate.weight");
  EXPECT_EQ(router->disk[0].dtype, DType::F32);
  EXPECT_EQ(t.arch.layers()[0].mixer, Mixer::LinearAttention);
  EXPECT_EQ(t.arch.layers()[0].state.key_heads, 64u);
  EXPECT_EQ(t.arch.layers()[7].mixer, Mixer::Attention);

  // The -hf form transformers reads names the same layers in layer_types.
  std::string types = R"("layer_types":[)";
  for (int i = 0; i < 80; ++i)
    types += std::string(i ? "," : "") + (i % 8 == 7 ? "\"full_attention\"" : "\"linear_attention\"");
  EXPECT_EQ(parameters_of(m1_config("minimax", types + "]")), 456'089'655'296u);
  // MiniMaxConfig alone alternates from softmax at layer 0; the remote classes have no default.
  const ModelTemplate bare = template_of(R"({"model_type":"minimax","num_hidden_layers":4,"hidden_size":64,
      "num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":96})");
  EXPECT_EQ(bare.arch.layers()[0].mixer, Mixer::Attention);
  EXPECT_EQ(bare.arch.layers()[1].mixer, Mixer::LinearAttention);
  EXPECT_THROW(template_of(R"({"model_type":"minimax_text_01","num_hidden_layers":4})"), Error);
  EXPECT_THROW(template_of(m1_config("minimax", R"("attn_type_list":[0,1])")), Error);
}

// Each lightning layer keeps one 128 x 128 matrix per head, whatever the context; only the ten softmax
// layers' keys and values grow with it.
TEST(LightningAttention, StateIsOneMatrixPerHeadWithoutAConvolution) {
  const ModelTemplate t = template_of(m1_config());
  const KvCachePlan kv = plan_kv_cache(t.arch, DType::BF16, DType::F32, 8192);
  EXPECT_EQ(kv.state_per_sequence, 70u * 64 * 128 * 128 * 4);
  EXPECT_EQ(kv.per_token, 10u * 2 * 8 * 128 * 2);
  EXPECT_EQ(kv.layers[0].formula.find("conv"), std::string::npos);
}

}  // namespace
}  // namespace ma::test
