// Perception-LM (model/families/perception_lm.cpp): a Perception Encoder tower (timm's Eva, built from its
// architecture name), a two-linear projector and a Llama language model, against transformers' classes with
// timm's tower instantiated at full size (the reference counter of this work) and the Llama models inside.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

const std::string k1b =
    R"({"architectures":["PerceptionLMForConditionalGeneration"],"model_type":"perception_lm",
    "projector_pooling_ratio":2,
    "text_config":{"model_type":"llama","head_dim":64,"hidden_size":2048,"intermediate_size":8192,
      "num_attention_heads":32,"num_hidden_layers":16,"num_key_value_heads":8,"tie_word_embeddings":true,
      "vocab_size":128256},
    "vision_config":{"architecture":"vit_pe_core_large_patch14_336","global_pool":"map",
      "model_args":{"depth":23,"embed_dim":1024,"global_pool":"","img_size":[448,448],"init_values":0.1,
        "use_post_transformer_norm":false}}})";

// Perception-LM-1B's language model is Llama-3.2-1B's, 1,235,814,400 (its head tied); the 8B's
// Llama-3.1-8B's.
TEST(PerceptionLm, CountsThePeTowerAndTheLlamaInside) {
  const ParameterCounts c = counts_of(k1b);
  EXPECT_EQ(c.total, 1'533'524'992u);
  EXPECT_EQ(c.towers, 291'415'040u + 6'295'552u);
  EXPECT_EQ(c.total - c.towers, 1'235'814'400u);
  const ModelTemplate t = template_of(k1b);
  EXPECT_EQ(find_tensor(t, "model.vision_tower.timm_model.pos_embed")->shape, Shape({1, 1025, 1024}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.timm_model.patch_embed.proj.bias"), nullptr);
  EXPECT_NE(find_tensor(t, "model.vision_tower.timm_model.blocks.22.gamma_2"), nullptr);
  const std::string pro8b =
      R"({"architectures":["PerceptionLMForConditionalGeneration"],"model_type":"perception_lm",
      "text_config":{"model_type":"llama","hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,
        "num_hidden_layers":32,"num_key_value_heads":8,"tie_word_embeddings":false,"vocab_size":128256},
      "vision_config":{"architecture":"vit_pe_core_gigantic_patch14_448",
        "model_args":{"depth":47,"embed_dim":1536,"global_pool":"","img_size":[448,448],"init_values":0.1,
          "use_post_transformer_norm":false}}})";
  const ParameterCounts c8 = counts_of(pro8b);
  EXPECT_EQ(c8.total, 9'794'260'736u);
  EXPECT_EQ(c8.total - c8.towers, 8'030'261'248u);  // Llama-3.1-8B
  EXPECT_EQ(refusal_of(replaced(k1b, R"("global_pool":"",)", "")).kind, ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(replaced(k1b, "vit_pe_core_large_patch14_336", "resnet50")).kind,
            ErrorKind::Unsupported);
  expect_reads_cleanly(
      R"({"architectures":["PerceptionLMForConditionalGeneration"],"model_type":"perception_lm",
      "text_config":{"model_type":"llama","hidden_size":32,"intermediate_size":48,"num_attention_heads":4,
        "num_hidden_layers":2,"vocab_size":64},
      "vision_config":{"architecture":"vit_pe_core_large_patch14_336",
        "model_args":{"depth":2,"embed_dim":16,"global_pool":"","img_size":[28,28],"init_values":0.1,
          "use_post_transformer_norm":true}}})");
}

}  // namespace
}  // namespace ma::test
