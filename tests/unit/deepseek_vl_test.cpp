// DeepSeek-VL as transformers converts it (model/families/deepseek_vl.cpp), against transformers' classes
// instantiated at full size (the reference counter of this work) and the size of the original's Hub file.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// deepseek-community/deepseek-vl-1.3b-chat's config (its shape-setting fields).
const std::string k13b =
    R"({"architectures":["DeepseekVLForConditionalGeneration"],"model_type":"deepseek_vl",
    "text_config":{"model_type":"llama","hidden_size":2048,"intermediate_size":5632,"max_position_embeddings":16384,
      "num_attention_heads":16,"num_hidden_layers":24,"vocab_size":102400},
    "vision_config":{"model_type":"siglip_vision_model","hidden_size":1024,"intermediate_size":4096,
      "image_size":384,"patch_size":16,"vision_use_head":false,"num_attention_heads":16,"num_hidden_layers":24}})";

// The model loaded from that checkpoint: its trained head apart from the embedding, 1,962,640,384. The
// original repository's model.safetensors (deepseek-vl-1.3b-base, 3.95 GB in bfloat16) holds the same plus
// the tower's pooling head (12,595,200), which the conversion drops.
TEST(DeepseekVl, CountsTheConvertedModel) {
  const ParameterCounts c = counts_of(k13b);
  EXPECT_EQ(c.total, 1'962'640'384u);
  EXPECT_EQ((2 * (c.total + 12'595'200) + 5'000'000) / 10'000'000, 395u);
  EXPECT_EQ(c.towers, 303'688'704u + 6'295'552u);
  const ModelTemplate t = template_of(k13b);
  EXPECT_EQ(stored_name(*find_tensor(t, "model.vision_model.encoder.layers.23.mlp.fc2.bias")),
            "model.vision_model.vision_model.encoder.layers.23.mlp.fc2.bias");
  EXPECT_EQ(find_tensor(t, "model.vision_model.head.probe"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.aligner.linear1.weight")->shape, Shape({2048, 1024}));
  expect_reads_cleanly(R"({"architectures":["DeepseekVLForConditionalGeneration"],"model_type":"deepseek_vl",
      "text_config":{"model_type":"llama","hidden_size":32,"intermediate_size":48,"num_attention_heads":4,
        "num_hidden_layers":2,"vocab_size":64},
      "vision_config":{"hidden_size":16,"intermediate_size":24,"image_size":32,"patch_size":16,
        "vision_use_head":false,"num_attention_heads":2,"num_hidden_layers":2}})");
}

// deepseek-ai/deepseek-vl-1.3b-chat, DeepSeek's own repository (multi_modality, no generation modules): the
// converted model plus the tower's pooling head, 1,975,235,584, its 3.95 GB model.safetensors.
TEST(DeepseekVl, DeepSeeksOwnRepositoryKeepsThePoolingHead) {
  const std::string original = R"({"architectures":["MultiModalityCausalLM"],"model_type":"multi_modality",
      "aligner_config":{"cls":"MlpProjector","params":{"depth":2,"input_dim":1024,"n_embed":2048,
        "projector_type":"mlp_gelu"}},
      "vision_config":{"cls":"CLIPVisionTower","params":{"image_size":384,"model_name":"siglip_large_patch16_384",
        "select_feature":"same","select_layer":-1}},
      "language_config":{"model_type":"llama","hidden_size":2048,"intermediate_size":5632,
        "max_position_embeddings":16384,"num_attention_heads":16,"num_hidden_layers":24,"vocab_size":102400}})";
  EXPECT_EQ(parameters_of(original), 1'975'235'584u);
  EXPECT_EQ(parameters_of(original), parameters_of(k13b) + 12'595'200u);
  EXPECT_EQ(disk_totals(template_of(original)).tensors, 529u);
}

}  // namespace
}  // namespace ma::test
