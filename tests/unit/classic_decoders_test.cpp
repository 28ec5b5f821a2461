// GPT-Neo and CodeGen (model/families/classic_decoders.cpp): their counts, names and layer kinds on the
// configs their Hub repositories publish, and the buffers old checkpoints of them store.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// EleutherAI/gpt-neo-1.3B's config.json, the fields a count depends on.
constexpr const char* kGptNeo13b = R"({"model_type":"gpt_neo","architectures":["GPTNeoForCausalLM"],
    "hidden_size":2048,"num_layers":24,"num_heads":16,"intermediate_size":null,"vocab_size":50257,
    "max_position_embeddings":2048,"window_size":256,"attention_types":[[["global","local"],12]]})";

std::string gpt_neo(uint64_t hidden, uint64_t layers, uint64_t heads) {
  return R"({"model_type":"gpt_neo","hidden_size":)" + std::to_string(hidden) + R"(,"num_layers":)" +
         std::to_string(layers) + R"(,"num_heads":)" + std::to_string(heads) +
         R"(,"vocab_size":50257,"max_position_embeddings":2048,"attention_types":[[["global","local"],)" +
         std::to_string(layers / 2) + "]]}";
}

// transformers' own count of GPTNeoForCausalLM for gpt-neo-1.3B, as a module printer shows it in a public
// repository: "GPTNeoForCausalLM<all params:1315575808>", its 24 blocks "50352128x24". 125M and 2.7B by hand
// with the same rule: wte V x H + wpe 2,048 x H + per block 12H^2 + 13H (bias-free q/k/v, biased out_proj,
// a 4H MLP, two LayerNorms) + ln_f 2H, the head tied: 125,198,592 and 2,651,307,520.
TEST(GptNeo, CountsAreTransformers) {
  EXPECT_EQ(parameters_of(kGptNeo13b), 1'315'575'808u);
  EXPECT_EQ(parameters_of(gpt_neo(768, 12, 12)), 125'198'592u);
  EXPECT_EQ(parameters_of(gpt_neo(2560, 32, 20)), 2'651'307'520u);
  const ModelTemplate t = template_of(kGptNeo13b);
  uint64_t block = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.name.starts_with("transformer.h.0."))
      block += x.shape.size() == 1 ? x.shape[0] : x.shape[0] * x.shape[1];
  EXPECT_EQ(block, 50'352'128u);
}

TEST(GptNeo, GlobalAndLocalLayersAlternate) {
  const ModelTemplate t = template_of(kGptNeo13b);
  EXPECT_EQ(t.arch.architecture, "GPTNeoForCausalLM");
  ASSERT_EQ(t.arch.layers().size(), 24u);
  EXPECT_EQ(t.arch.layers()[0].attention.window, 0u);
  EXPECT_EQ(t.arch.layers()[1].attention.window, 256u);
  EXPECT_EQ(t.arch.layers()[23].attention.window, 256u);
  EXPECT_EQ(find_tensor(t, "transformer.h.0.attn.attention.q_proj.weight")->shape, Shape({2048, 2048}));
  EXPECT_EQ(find_tensor(t, "transformer.h.0.attn.attention.q_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "transformer.h.0.attn.attention.out_proj.bias")->shape, Shape({2048}));
  EXPECT_EQ(find_tensor(t, "transformer.h.0.mlp.c_fc.weight")->shape, Shape({8192, 2048}));  // nn.Linear
  EXPECT_TRUE(t.arch.tie_word_embeddings);
  // Checkpoints written before the causal masks became non-persistent store them: buffers, not unknowns.
  EXPECT_EQ(place_tensor("transformer.h.0.attn.attention.bias").block, Block::Buffer);
  EXPECT_EQ(place_tensor("transformer.h.0.attn.attention.masked_bias").block, Block::Buffer);
}

TEST(GptNeo, RefusesKindsThatDoNotCoverTheLayers) {
  try {
    template_of(R"({"model_type":"gpt_neo","num_layers":4,"attention_types":[[["global","local"],1]]})");
    FAIL() << "accepted 2 layer kinds for 4 layers";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("attention_types"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expands to 2 layers"), std::string::npos) << e.what();
  }
  EXPECT_THROW(template_of(R"({"model_type":"gpt_neo","num_layers":2,"attention_types":[[["sparse"],2]]})"),
               Error);
  EXPECT_THROW(template_of(R"({"model_type":"gpt_neo","num_layers":2,"attention_types":[["global",2]]})"),
               Error);
}

// Salesforce/codegen-350M-mono's config.json.
constexpr const char* kCodeGen350m = R"({"model_type":"codegen","architectures":["CodeGenForCausalLM"],
    "n_embd":1024,"n_layer":20,"n_head":16,"n_inner":null,"n_positions":2048,"rotary_dim":32,
    "vocab_size":51200,"tie_word_embeddings":false})";

// By hand: wte 51,200 x 1,024 = 52,428,800; per block ln_1 2,048 + qkv_proj 3 x 1,024^2 + out_proj 1,024^2 +
// fc_in 4,198,400 + fc_out 4,195,328 = 12,590,080, x 20; ln_f 2,048; the untied, biased head 52,480,000.
TEST(CodeGen, Mono350mCountAndNames) {
  EXPECT_EQ(parameters_of(kCodeGen350m), 356'712'448u);
  const ModelTemplate t = template_of(kCodeGen350m);
  EXPECT_EQ(t.arch.architecture, "CodeGenForCausalLM");
  EXPECT_EQ(find_tensor(t, "transformer.h.0.attn.qkv_proj.weight")->shape, Shape({3072, 1024}));
  EXPECT_EQ(find_tensor(t, "transformer.h.0.attn.qkv_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "lm_head.bias")->shape, Shape({51200}));
  EXPECT_FALSE(t.arch.tie_word_embeddings);
  EXPECT_EQ(place_tensor("transformer.h.0.attn.causal_mask").block, Block::Buffer);
}

}  // namespace
}  // namespace ma::test
