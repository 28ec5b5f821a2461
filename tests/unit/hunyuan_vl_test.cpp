// HunyuanOCR (hunyuan_vl, model/families/hunyuan_vl.cpp): a SigLIP-style tower over a learned table of
// 128 x 128 + 1 positions, a convolutional patch merger and Hunyuan's dense decoder, from the Hub's flat
// config. Independent figures: "996M" in published benchmark tables, and its four bf16 shards of 1,993 MB
// (1,992,416,224 bytes of values with the head tied; untied it would be 247 MB more).
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// tencent/HunyuanOCR's config.json (flat: the language model's fields at the top level), the fields that
// shape tensors.
constexpr const char* kHunyuanOcr = R"({"model_type":"hunyuan_vl",
    "architectures":["HunYuanVLForConditionalGeneration"],"attention_bias":false,"head_dim":128,
    "hidden_size":1024,"intermediate_size":3584,"num_attention_heads":16,"num_hidden_layers":24,
    "num_key_value_heads":8,"tie_word_embeddings":true,"vocab_size":120818,
    "vision_config":{"hidden_size":1152,"intermediate_size":4304,"max_image_size":2048,"num_attention_heads":16,
      "num_channels":3,"num_hidden_layers":27,"out_hidden_size":1024,"patch_size":16,"spatial_merge_size":2}})";

TEST(HunyuanVl, CountsAsItsCheckpointHoldsIt) {
  EXPECT_EQ(parameters_of(kHunyuanOcr), 996'208'112u);
  const ModelTemplate t = template_of(kHunyuanOcr);
  EXPECT_EQ(t.arch.architecture, "HunYuanVLForConditionalGeneration");
  const DiskTotals disk = disk_totals(t);
  EXPECT_EQ(disk.tensors, 713u);
  EXPECT_EQ(disk.elements * 2, 1'992'416'224u);
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "model.vision_tower.embeddings.position_embedding.weight")->shape,
            Shape({16385, 1152}));
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.0.self_attn.q_proj.weight")->shape,
            Shape({2048, 1024}));  // head_dim 128, not 1,024 / 16
}

// The checkpoint keeps transformers 4's names, which transformers' conversion mapping renames on load.
TEST(HunyuanVl, CheckpointKeepsTheOriginalNames) {
  const ModelTemplate t = template_of(kHunyuanOcr);
  const auto disk = [&](const std::string& memory) { return stored_name(*find_tensor(t, memory)); };
  const std::string v = "model.vision_tower.";
  EXPECT_EQ(disk(v + "layers.3.layer_norm1.weight"), "vit.layers.3.input_layernorm.weight");
  EXPECT_EQ(disk(v + "layers.3.layer_norm2.bias"), "vit.layers.3.post_attention_layernorm.bias");
  EXPECT_EQ(disk(v + "layers.26.mlp.fc1.weight"), "vit.layers.26.mlp.dense_h_to_4h.weight");
  EXPECT_EQ(disk(v + "layers.26.mlp.fc2.bias"), "vit.layers.26.mlp.dense_4h_to_h.bias");
  EXPECT_EQ(disk(v + "layers.0.self_attn.o_proj.weight"), "vit.layers.0.self_attn.o_proj.weight");
  EXPECT_EQ(disk(v + "patch_merger.proj_conv.weight"), "vit.perceive.proj.0.weight");
  EXPECT_EQ(disk(v + "patch_merger.proj_out.bias"), "vit.perceive.proj.2.bias");
  EXPECT_EQ(disk(v + "patch_merger.image_newline"), "vit.perceive.image_newline");
  EXPECT_EQ(disk("model.language_model.layers.0.self_attn.query_layernorm.weight"),
            "model.layers.0.self_attn.query_layernorm.weight");
  // The merger: 2 x 2 patches through a strided conv to 2,304, a 1 x 1 conv to 4,608 (the newline's
  // width), a linear to the text width.
  EXPECT_EQ(find_tensor(t, v + "patch_merger.proj_conv.weight")->shape, Shape({2304, 1152, 2, 2}));
  EXPECT_EQ(find_tensor(t, v + "patch_merger.image_newline")->shape, Shape({4608}));
  EXPECT_EQ(find_tensor(t, v + "patch_merger.mlp.weight")->shape, Shape({1024, 4608}));
  EXPECT_EQ(find_tensor(t, v + "post_layernorm.weight"), nullptr);
}

}  // namespace
}  // namespace ma::test
