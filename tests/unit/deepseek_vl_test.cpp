// DeepSeek-VL as transformers converts it (model/families/deepseek_vl.cpp) and as DeepSeek's repositories
// hold it (multi_modality.cpp), against transformers' classes instantiated at full size (the reference
// counter of this work) and the size of the original's Hub file. DeepSeek-VL-7B adds SAM's encoder
// (sam_vision.cpp) as a second, high-resolution tower.
#include <gtest/gtest.h>

#include <string>

#include "model/inventory.h"
#include "model/tensor_placement.h"
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

// deepseek-community/deepseek-vl-7b-chat's config: SigLIP-L at 384 pixels beside SAM ViT-B at 1,024.
const std::string kDeepseekVl7b =
    R"({"architectures":["DeepseekVLHybridForConditionalGeneration"],"model_type":"deepseek_vl_hybrid",
    "text_config":{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,"max_position_embeddings":16384,
      "num_attention_heads":32,"num_hidden_layers":30,"vocab_size":102400},
    "vision_config":{"model_type":"siglip_vision_model","hidden_size":1024,"intermediate_size":4096,
      "image_size":384,"patch_size":16,"vision_use_head":false,"num_attention_heads":16,"num_hidden_layers":24},
    "high_res_vision_config":{"model_type":"sam_vision_model","hidden_size":768,"intermediate_size":3072,
      "image_size":1024,"patch_size":16,"num_attention_heads":12,"num_hidden_layers":12,"output_channels":256,
      "window_size":14,"global_attn_indexes":[2,5,8,11],"use_abs_pos":true,"use_rel_pos":true}})";

// The SAM tower: a 64 x 64 position grid of 768, twelve layers whose relative-position tables span 27
// (their 14 x 14 windows) or 127 (the global layers 2, 5, 8 and 11) positions of 64, and a neck to 256.
uint64_t sam_b_encoder() {
  const uint64_t h = 768, mlp = 3072, hd = 64;
  const uint64_t layer = 2 * (2 * h) + (3 * h * h + 3 * h) + (h * h + h) + (2 * h * mlp + mlp + h);
  const uint64_t tables = 8 * 2 * 27 * hd + 4 * 2 * 127 * hd;
  const uint64_t neck = 256 * h + 2 * 256 + 256 * 256 * 9 + 2 * 256;
  return 64 * 64 * h + (h * 3 * 16 * 16 + h) + 12 * layer + tables + neck;
}

// DeepSeek-VL-7B converted: the 1.3B's frame at 4,096 wide and 30 layers, SAM's encoder (89,670,912), a
// second neck over its first global layer's states, two convolutions to 1,024 channels and their mixing
// weight, and an aligner of two half-width linears and one full one.
TEST(DeepseekVl, HybridAddsTheSamTower) {
  EXPECT_EQ(sam_b_encoder(), 89'670'912u);
  const ParameterCounts c = counts_of(kDeepseekVl7b);
  EXPECT_EQ(c.total, 7'331'390'721u);
  const uint64_t second_neck = 256 * 768 + 2 * 256 + 256 * 256 * 9 + 2 * 256;
  const uint64_t downsampling = 512 * 256 * 9 + 1024 * 512 * 9;
  const uint64_t aligner = (1024 * 2048 + 2048) + (1024 * 2048 + 2048) + (4096 * 4096 + 4096);
  EXPECT_EQ(c.towers, 303'688'704u + sam_b_encoder() + second_neck + downsampling + 1 + aligner);
  const ModelTemplate t = template_of(kDeepseekVl7b);
  EXPECT_EQ(disk_totals(t).tensors, 854u);
  const std::string sam = "model.high_res_vision_model.vision_encoder.";
  EXPECT_EQ(find_tensor(t, sam + "layers.2.attn.rel_pos_h")->shape, Shape({127, 64}));
  EXPECT_EQ(find_tensor(t, sam + "layers.3.attn.rel_pos_w")->shape, Shape({27, 64}));
  EXPECT_EQ(find_tensor(t, "model.high_res_vision_proj.conv2.weight")->shape, Shape({1024, 512, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.aligner.high_res_vision_proj.weight")->shape, Shape({2048, 1024}));
  EXPECT_EQ(place_tensor(sam + "layers.7.mlp.lin1.weight").block, Block::Vision);
  EXPECT_EQ(place_tensor("model.high_res_vision_alpha").block, Block::Vision);
  // Two towers of one role: each stack reports the tensors under its own module, not the role's total.
  size_t towers = 0;
  for (size_t i = 0; i < t.arch.stacks.size(); ++i) {
    if (t.arch.stacks[i].path == sam + "layers") {
      EXPECT_EQ(c.each_stack[i], sam_b_encoder());
      ++towers;
    } else if (t.arch.stacks[i].path == "model.vision_model.encoder.layers") {
      EXPECT_EQ(c.each_stack[i], 303'688'704u);
      ++towers;
    }
  }
  EXPECT_EQ(towers, 2u);
  expect_reads_cleanly(R"({"architectures":["DeepseekVLHybridForConditionalGeneration"],
      "model_type":"deepseek_vl_hybrid",
      "text_config":{"model_type":"llama","hidden_size":32,"intermediate_size":48,"num_attention_heads":4,
        "num_hidden_layers":2,"vocab_size":64},
      "vision_config":{"hidden_size":16,"intermediate_size":24,"image_size":32,"patch_size":16,
        "vision_use_head":false,"num_attention_heads":2,"num_hidden_layers":2},
      "high_res_vision_config":{"hidden_size":16,"image_size":64,"patch_size":16,"num_attention_heads":2,
        "num_hidden_layers":3,"output_channels":8,"window_size":2,"global_attn_indexes":[1]}})");
}

// DeepSeek's own repository of DeepSeek-VL-7B (multi_modality with its HybridVisionTower): the converted
// model plus the SigLIP pooling head the conversion drops (12,595,200) and the two LayerNorms the code builds
// over the towers' outputs and never runs, 7,343,990,017 in 775 tensors. The SAM necks and downsampling are
// Sequentials: no layer.
TEST(DeepseekVl, DeepSeeksOwnHybridRepository) {
  const std::string original = R"({"architectures":["MultiModalityCausalLM"],"model_type":"multi_modality",
      "aligner_config":{"cls":"MlpProjector","params":{"depth":2,"input_dim":1024,"n_embed":4096,
        "projector_type":"low_high_hybrid_split_mlp_gelu"}},
      "vision_config":{"cls":"HybridVisionTower","params":{"concat_type":"tuple",
        "high_res_cfg":{"image_size":1024,"model_name":"sam_b_downsample","output_dim":1024,"select_layer":-1},
        "low_res_cfg":{"image_size":384,"model_name":"siglip_large_patch16_384","output_dim":1024,
          "select_layer":-1}}},
      "language_config":{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,
        "max_position_embeddings":16384,"num_attention_heads":32,"num_hidden_layers":30,"vocab_size":102400}})";
  EXPECT_EQ(parameters_of(original), parameters_of(kDeepseekVl7b) + 12'595'200u + 2 * 2048);
  EXPECT_EQ(parameters_of(original), 7'343'990'017u);
  const ModelTemplate t = template_of(original);
  EXPECT_EQ(disk_totals(t).tensors, 775u);
  const std::string high = "vision_model.vision_tower_high.vision_tower.";
  EXPECT_EQ(find_tensor(t, high + "blocks.11.attn.rel_pos_h")->shape, Shape({127, 64}));
  EXPECT_EQ(find_tensor(t, high + "neck_hd.2.weight")->shape, Shape({256, 256, 3, 3}));
  EXPECT_EQ(find_tensor(t, "aligner.layers.1.weight")->shape, Shape({4096, 4096}));
  EXPECT_FALSE(place_tensor(high + "neck.3.bias").layer.has_value());
  EXPECT_FALSE(place_tensor(high + "downsamples.1.weight").layer.has_value());
  EXPECT_EQ(place_tensor(high + "blocks.5.attn.qkv.weight").layer, 5u);
  EXPECT_EQ(refusal_of(replaced(original, "sam_b_downsample", "sam_h")).kind, ErrorKind::Unsupported);
  EXPECT_EQ(refusal_of(replaced(original, R"("image_size":1024)", R"("image_size":8)")).field,
            "vision_config.params.high_res_cfg.image_size");
}

// Hostile SAM settings end in one line naming the field.
TEST(DeepseekVl, SamFieldsAreChecked) {
  EXPECT_EQ(
      refusal_of(replaced(kDeepseekVl7b, R"("num_attention_heads":12)", R"("num_attention_heads":7)")).field,
      "high_res_vision_config.num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kDeepseekVl7b, R"("image_size":1024)", R"("image_size":8)")).field,
            "high_res_vision_config.image_size");
  EXPECT_EQ(refusal_of(replaced(kDeepseekVl7b, R"("window_size":14)", R"("mlp_ratio":0)")).field,
            "high_res_vision_config.mlp_ratio");
  EXPECT_EQ(
      refusal_of(replaced(kDeepseekVl7b, R"("num_hidden_layers":12)", R"("num_hidden_layers":100000)")).field,
      "high_res_vision_config.num_hidden_layers");
  // A window of 0 makes every layer global.
  const ModelTemplate all_global =
      template_of(replaced(kDeepseekVl7b, R"("window_size":14)", R"("window_size":0)"));
  EXPECT_EQ(
      find_tensor(all_global, "model.high_res_vision_model.vision_encoder.layers.0.attn.rel_pos_h")->shape,
      Shape({127, 64}));
}

}  // namespace
}  // namespace ma::test
