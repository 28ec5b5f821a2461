// ERNIE-4.5-VL (model/families/ernie4_5_vl.cpp): the 28B-A3B in both config layouts against its model card,
// the two expert banks of a sparse layer as the Hub checkpoints store them, and a small checkpoint written in
// those names.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "formats/model_files.h"
#include "formats/safetensors_writer.h"
#include "model/inventory.h"
#include "model/template_matcher.h"
#include "template_test_support.h"
#include "test_support.h"

namespace ma::test {
namespace {

// baidu/ERNIE-4.5-VL-28B-A3B-PT's sizes in the remote-code layout the Hub's main branch ships.
constexpr const char* kFlat28b = R"({"model_type":"ernie4_5_moe_vl","hidden_size":2560,
    "intermediate_size":12288,"num_hidden_layers":28,"num_attention_heads":20,"num_key_value_heads":4,
    "vocab_size":103424,"use_bias":false,"tie_word_embeddings":true,"moe_num_experts":[64,64],
    "moe_intermediate_size":[1536,512],"moe_k":6,"moe_layer_start_index":[1,1],"moe_layer_end_index":[29,28],
    "moe_layer_interval":1,"moe_num_shared_experts":2,"pixel_hidden_size":1280,"spatial_conv_size":2,
    "temporal_conv_size":2,"vision_config":{"depth":32,"embed_dim":1280,"hidden_size":1280,"mlp_ratio":4,
    "num_heads":16,"in_channels":3,"patch_size":14,"spatial_merge_size":2}})";

// The same model in transformers' layout (convert_ernie4_5_vl_moe_to_hf.py): nested, mlp_layer_types.
std::string nested_28b() {
  std::string types = R"(["dense")";
  for (int i = 1; i < 28; ++i) types += R"(,"sparse")";
  return R"({"model_type":"ernie4_5_vl_moe","tie_word_embeddings":true,"text_config":{"hidden_size":2560,
      "intermediate_size":12288,"num_hidden_layers":28,"num_attention_heads":20,"num_key_value_heads":4,
      "vocab_size":103424,"use_bias":false,"moe_num_experts":64,"moe_intermediate_size":[1536,512],
      "moe_k":6,"moe_num_shared_experts":2,"mlp_layer_types":)" +
         types + R"(]},"vision_config":{"depth":32,"hidden_size":1280,"intermediate_size":5120,
      "num_heads":16,"in_channels":3,"patch_size":14,"spatial_merge_size":2,"temporal_merge_size":2}})";
}

// The card: "28B total / 3B activated", 64 text and 64 vision experts, 2 shared, 6 active. Its text-only
// sibling ERNIE-4.5-21B-A3B (the same decoder without the vision bank) is listed at 21.8B.
TEST(Ernie45Vl, BothLayoutsCountTheCardsModel) {
  for (const std::string& config : {std::string(kFlat28b), nested_28b()}) {
    const ParameterCounts c = counts_of(config);
    EXPECT_EQ(c.total, 29'399'294'336u) << config;
    // A text token runs the text bank's 6 of 64 experts, never the vision bank nor the tower.
    ASSERT_TRUE(c.active_non_embedding.has_value());
    EXPECT_EQ((*c.active_non_embedding + 500'000'000) / 1'000'000'000, 3u);
    EXPECT_EQ(c.routed_experts, uint64_t{27} * 64 * 3 * 2560 * 1536);
    // The vision bank (27 layers x 64 experts of width 512, routers and score biases), the tower (32
    // blocks of Qwen2-VL's, a linear patch embedding, a LayerNorm) and the resampler.
    const uint64_t vision_bank = uint64_t{27} * (uint64_t{64} * 3 * 2560 * 512 + 64 * 2560 + 64);
    const uint64_t tower =
        1280u * 588 +
        32 * (4 * 1280 + 3 * 1280 * 1280 + 3 * 1280 + 1280 * 1280 + 1280 + 2 * 1280 * 5120 + 5120 + 1280) +
        2 * 1280;
    const uint64_t resampler = 2 * (uint64_t{5120} * 5120 + 5120) + 2 * 5120 + (10240u * 5120 + 5120) +
                               5120 * 5120 + 5120 + 2 * 5120 + 5120u * 2560 + 2560 + 2560;
    EXPECT_EQ(c.towers, vision_bank + tower + resampler);
    EXPECT_EQ((c.total - vision_bank - tower - resampler + 50'000'000) / 100'000'000, 218u);
  }
}

TEST(Ernie45Vl, BanksAreStoredAsTheCheckpointsHoldThem) {
  const ModelTemplate t = template_of(kFlat28b);
  std::vector<DiskTensor> disk = disk_form(t);
  EXPECT_EQ(disk.size(), 11'105u);
  const auto shape_on_disk = [&](const std::string& name) {
    for (const DiskTensor& x : disk)
      if (x.name == name) return x.shape;
    return Shape{};
  };
  // The vision experts follow the 64 text ones; both routers are stored transposed, and the two banks'
  // score biases as one [2, 64] tensor.
  EXPECT_EQ(shape_on_disk("model.layers.1.mlp.experts.63.gate_proj.weight"), Shape({1536, 2560}));
  EXPECT_EQ(shape_on_disk("model.layers.1.mlp.experts.64.gate_proj.weight"), Shape({512, 2560}));
  EXPECT_EQ(shape_on_disk("model.layers.1.mlp.experts.127.down_proj.weight"), Shape({2560, 512}));
  EXPECT_EQ(shape_on_disk("model.layers.1.mlp.experts.128.down_proj.weight"), Shape{});
  EXPECT_EQ(shape_on_disk("model.layers.1.mlp.gate.weight"), Shape({2560, 64}));
  EXPECT_EQ(shape_on_disk("model.layers.1.mlp.gate.weight_1"), Shape({2560, 64}));
  EXPECT_EQ(shape_on_disk("model.layers.1.mlp.moe_statics.e_score_correction_bias"), Shape({2, 64}));
  EXPECT_EQ(shape_on_disk("vision_model.patch_embed.proj.weight"), Shape({1280, 588}));
  EXPECT_EQ(shape_on_disk("model.resampler_model.temporal_linear.0.weight"), Shape({5120, 10240}));
  EXPECT_EQ(shape_on_disk("model.resampler_model.spatial_linear.3.bias"), Shape({5120}));
  // Each piece of a shared prefix finds its own bank.
  TemplateMatcher m(t, DType::BF16);
  const TemplateMatch text = m.match("model.layers.5.mlp.experts.10.up_proj.weight");
  const TemplateMatch vision = m.match("model.layers.5.mlp.experts.74.up_proj.weight");
  ASSERT_EQ(text.how, TemplateMatch::How::ExpertPiece);
  ASSERT_EQ(vision.how, TemplateMatch::How::ExpertPiece);
  EXPECT_EQ(text.tensor->name, "model.language_model.layers.5.mlp.text_moe.experts.gate_up_proj");
  EXPECT_EQ(vision.tensor->name, "model.language_model.layers.5.mlp.vision_moe.experts.gate_up_proj");
  EXPECT_EQ(*vision.shape, Shape({512, 2560}));
  EXPECT_EQ(m.match("model.layers.5.mlp.experts.128.up_proj.weight").how, TemplateMatch::How::None);
}

// A small ERNIE-4.5-VL in the checkpoint's names: every tensor matches, nothing is missing or unexpected.
TEST(Ernie45Vl, SmallCheckpointInHubNamesMatches) {
  const std::string config = R"({"model_type":"ernie4_5_moe_vl","hidden_size":64,"intermediate_size":96,
      "num_hidden_layers":3,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100,
      "tie_word_embeddings":false,
      "moe_num_experts":[4,4],"moe_intermediate_size":[32,16],"moe_k":2,"moe_layer_start_index":[1,1],
      "moe_layer_end_index":[2,2],"moe_num_shared_experts":1,"pixel_hidden_size":32,
      "vision_config":{"depth":2,"embed_dim":32,"hidden_size":32,"mlp_ratio":2,"num_heads":2,"patch_size":14}})";
  const StoredCheckpoint stored = stored_checkpoint(config);
  const Inventory& inv = stored.inventory;
  EXPECT_TRUE(inv.warnings.empty()) << inv.warnings.front();
  EXPECT_EQ(inv.tensors.size(), stored.written);
  ASSERT_TRUE(inv.checkpoint.has_value());
  EXPECT_EQ(inv.checkpoint->parameters, parameters_of(config));
}

TEST(Ernie45Vl, RefusesBanksTransformersCannotBuild) {
  const auto field_of = [](const std::string& from, const std::string& to) {
    return refusal_of(replaced(kFlat28b, from, to)).field;
  };
  EXPECT_EQ(field_of(R"("moe_num_experts":[64,64])", R"("moe_num_experts":[64,32])"), "moe_num_experts");
  EXPECT_EQ(field_of(R"("moe_k":6)", R"("moe_k":65)"), "moe_k");
  EXPECT_EQ(field_of(R"("pixel_hidden_size":1280)", R"("pixel_hidden_size":1024)"), "pixel_hidden_size");
  EXPECT_EQ(field_of(R"("hidden_size":1280,"mlp_ratio")", R"("hidden_size":1024,"mlp_ratio")"),
            "vision_config.hidden_size");
  EXPECT_EQ(field_of(R"("moe_intermediate_size":[1536,512])", R"("moe_intermediate_size":[1536,512,3])"),
            "moe_intermediate_size");
}

}  // namespace
}  // namespace ma::test
