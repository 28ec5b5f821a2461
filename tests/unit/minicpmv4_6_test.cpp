// MiniCPM-V 4.6 (minicpmv4_6, model/families/qwen_hybrid.cpp): a headless SigLIP tower with a
// window-attention merger stored beside its encoder, a 2 x 2 merger into Qwen3.5's dense language model. Its
// checkpoint is the independent figure: openbmb/MiniCPM-V-4.6's model.safetensors holds 779 bf16 tensors
// of 1,300,428,016 values (the Hub's safetensors total), lm_head tied and no MTP layer.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// openbmb/MiniCPM-V-4.6's config.json, the fields that shape tensors.
constexpr const char* kMiniCpmV46 = R"({"model_type":"minicpmv4_6",
    "architectures":["MiniCPMV4_6ForConditionalGeneration"],"image_size":1120,"insert_layer_id":6,
    "tie_word_embeddings":true,
    "text_config":{"model_type":"qwen3_5_text","vocab_size":248094,"hidden_size":1024,"intermediate_size":3584,
      "num_hidden_layers":24,"num_attention_heads":8,"num_key_value_heads":2,"head_dim":256,
      "linear_conv_kernel_dim":4,"linear_key_head_dim":128,"linear_num_key_heads":16,
      "linear_num_value_heads":16,"linear_value_head_dim":128,
      "layer_types":["linear_attention","linear_attention","linear_attention","full_attention",
        "linear_attention","linear_attention","linear_attention","full_attention","linear_attention",
        "linear_attention","linear_attention","full_attention","linear_attention","linear_attention",
        "linear_attention","full_attention","linear_attention","linear_attention","linear_attention",
        "full_attention","linear_attention","linear_attention","linear_attention","full_attention"],
      "tie_word_embeddings":true,"mtp_num_hidden_layers":1,
      "rope_parameters":{"partial_rotary_factor":0.25,"rope_theta":10000000,"rope_type":"default"}},
    "vision_config":{"hidden_size":1152,"image_size":980,"intermediate_size":4304,
      "model_type":"minicpmv4_6_vision","num_attention_heads":16,"num_channels":3,"num_hidden_layers":27,
      "patch_size":14}})";

TEST(MiniCpmV46, CountsAsItsCheckpointHoldsIt) {
  EXPECT_EQ(parameters_of(kMiniCpmV46), 1'300'428'016u);
  const ModelTemplate t = template_of(kMiniCpmV46);
  EXPECT_EQ(t.arch.architecture, "MiniCPMV4_6ForConditionalGeneration");
  const DiskTotals disk = disk_totals(t);
  EXPECT_EQ(disk.tensors, 779u);
  EXPECT_EQ(disk.elements, 1'300'428'016u);
  // The window merger: attention within each 2 x 2 window, then an MLP from the window's 4 x 1,152 values
  // through 4 x 4,304 back to 1,152.
  const std::string w = "model.vision_tower.vit_merger.";
  EXPECT_EQ(find_tensor(t, w + "self_attn.q_proj.weight")->shape, Shape({1152, 1152}));
  EXPECT_EQ(find_tensor(t, w + "pre_norm.weight")->shape, Shape({4608}));
  EXPECT_EQ(find_tensor(t, w + "linear_1.weight")->shape, Shape({17216, 4608}));
  EXPECT_EQ(find_tensor(t, w + "linear_2.bias")->shape, Shape({1152}));
  EXPECT_EQ(find_tensor(t, w + "layer_norm2.weight"), nullptr);
  // The tower's position table is sized by the vision config's image_size (70 x 70), not the top level's.
  EXPECT_EQ(find_tensor(t, "model.vision_tower.embeddings.position_embedding.weight")->shape,
            Shape({4900, 1152}));
  EXPECT_EQ(find_tensor(t, "model.vision_tower.head.probe"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.merger.mlp.0.linear_2.weight")->shape, Shape({1024, 4608}));
  EXPECT_EQ(find_tensor(t, "model.language_model.layers.3.self_attn.q_proj.weight")->shape,
            Shape({4096, 1024}));  // the output gate doubles it
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  // Positions are 1-D: plain partial rotary, not Qwen3.5's time/height/width sections.
  ASSERT_TRUE(t.arch.rope.has_value());
  EXPECT_NE(t.arch.rope->type, "mrope");
}

TEST(MiniCpmV46, MergerTimesAndWindowsShapeTheMergers) {
  std::string twice = kMiniCpmV46;
  twice.insert(twice.find("\"insert_layer_id\""), R"("merger_times":2,)");
  const ModelTemplate t = template_of(twice);
  EXPECT_EQ(find_tensor(t, "model.merger.mlp.0.linear_2.weight")->shape, Shape({1152, 4608}));
  EXPECT_EQ(find_tensor(t, "model.merger.mlp.1.linear_2.weight")->shape, Shape({1024, 4608}));
  std::string wide = kMiniCpmV46;
  wide.insert(wide.find("\"patch_size\":14"), R"("window_kernel_size":[3,3],)");
  EXPECT_EQ(find_tensor(template_of(wide), "model.vision_tower.vit_merger.pre_norm.weight")->shape,
            Shape({9 * 1152}));
  std::string oblong = kMiniCpmV46;
  oblong.insert(oblong.find("\"patch_size\":14"), R"("window_kernel_size":[2,3],)");
  EXPECT_THROW(template_of(oblong), Error);
}

}  // namespace
}  // namespace ma::test
