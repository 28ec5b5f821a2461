// ZoeDepth (model/families/zoedepth_model.cpp, beit_backbone.cpp, dpt_neck.cpp) on Intel's Hub configs. The
// counts are those of transformers' ZoeDepthForDepthEstimation with its BeitBackbone: the helper's verify/
// rebuilt the module tree with torch.nn and compared every state_dict key, shape and their order.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// Intel/zoedepth-nyu's config.json (reconstructed), the fields that shape the model: BEiT-large at 384 pixels
// with a relative position bias per layer, DPT's neck over four of its layers, one 64-bin configuration.
const std::string kZoeNyu =
    R"({"model_type":"zoedepth","architectures":["ZoeDepthForDepthEstimation"],"backbone":null,)"
    R"("backbone_config":{"model_type":"beit","hidden_size":1024,"num_hidden_layers":24,)"
    R"("num_attention_heads":16,"intermediate_size":4096,"image_size":384,"patch_size":16,)"
    R"("layer_scale_init_value":0.1,"use_relative_position_bias":true,)"
    R"("use_absolute_position_embeddings":false,"use_mask_token":false,"out_indices":[6,12,18,24],)"
    R"("reshape_hidden_states":false},"readout_type":"project","reassemble_factors":[4,2,1,0.5],)"
    R"("neck_hidden_sizes":[256,512,1024,1024],"fusion_hidden_size":256,)"
    R"("use_batch_norm_in_fusion_residual":false,"use_bias_in_fusion_residual":true,)"
    R"("num_relative_features":32,"add_projection":false,"bottleneck_features":256,)"
    R"("num_attractors":[16,8,4,1],"bin_embedding_dim":128,"bin_centers_type":"softplus",)"
    R"("bin_configurations":[{"n_bins":64,"min_depth":0.001,"max_depth":10.0}]})";
// Intel/zoedepth-nyu-kitti: two named bin configurations and the transformer that routes between them.
const std::string kZoeNyuKitti = replaced(
    kZoeNyu, R"([{"n_bins":64,"min_depth":0.001,"max_depth":10.0}])",
    R"([{"name":"nyu","n_bins":64,"min_depth":0.001,"max_depth":10.0},)"
    R"({"name":"kitti","n_bins":64,"min_depth":0.001,"max_depth":80.0}],"num_patch_transformer_layers":4,)"
    R"("patch_transformer_hidden_size":128,"patch_transformer_intermediate_size":1024,)"
    R"("patch_transformer_num_attention_heads":4)");

// 303,971,840 of BEiT-large (by hand: 12,632,640 a layer with its 2,212 x 16 bias table and two layer
// scales; 788,480 of class token and patch embedding; BeitBackbone has no final LayerNorm), 39,817,858 of
// neck and heads.
TEST(ZoeDepth, IntelCheckpointsCount) {
  EXPECT_EQ(parameters_of(kZoeNyu), 343'789'698u);
  EXPECT_EQ(parameters_of(kZoeNyuKitti), 345'073'307u);
  // ZoeDepthConfig() alone: its default BEiT-large backbone and DPT-base neck widths, 64 bins.
  EXPECT_EQ(parameters_of(R"({"model_type":"zoedepth"})"), 333'277'250u);
}

TEST(ZoeDepth, BeitBackboneNeckAndMetricHeads) {
  const ModelTemplate t = template_of(kZoeNyu);
  const std::string layer = "backbone.encoder.layer.0.";
  // BeitLayer registers its own lambda_1 / lambda_2 before its submodules; BEiT's keys have no bias.
  EXPECT_EQ(tensor_index(t, layer + "lambda_1") + 2,
            tensor_index(t, layer + "attention.attention.query.weight"));
  EXPECT_EQ(find_tensor(t, layer + "attention.attention.key.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, layer + "attention.attention.relative_position_bias.relative_position_bias_table")
                ->shape,
            (Shape{2212, 16}));  // (2 x 24 - 1)^2 + 3 offsets
  EXPECT_EQ(find_tensor(t, "backbone.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.readout_projects.3.0.weight")->shape, (Shape{1024, 2048}));
  EXPECT_EQ(find_tensor(t, "metric_head.attractors.1.conv2.weight")->shape, (Shape{8, 128, 1, 1}));
  // The last features and the relative depth (32 + 1) beside the 128-wide bin embedding, halved.
  EXPECT_EQ(find_tensor(t, "metric_head.conditional_log_binomial.mlp.0.weight")->shape,
            (Shape{80, 161, 1, 1}));
  EXPECT_EQ(t.tensors.back().name, "metric_head.conditional_log_binomial.mlp.2.bias");

  const ModelTemplate two = template_of(kZoeNyuKitti);
  // Every attractor of the multiple heads is built with the class's default 16, not num_attractors' counts.
  EXPECT_EQ(find_tensor(two, "metric_head.attractors.kitti.3.conv2.weight")->shape, (Shape{16, 128, 1, 1}));
  EXPECT_EQ(find_tensor(two, "metric_head.seed_bin_regressors.nyu.conv1.weight")->shape,
            (Shape{64, 256, 1, 1}));
  EXPECT_EQ(find_tensor(two, "metric_head.conditional_log_binomial.kitti.mlp.0.weight")->shape,
            (Shape{40, 160, 1, 1}));
}

TEST(ZoeDepth, BackboneOnLayersEverythingAfterOnTheHead) {
  for (const std::string& config : {kZoeNyu, kZoeNyuKitti}) expect_every_tensor_placed(template_of(config));
  EXPECT_EQ(place_tensor("backbone.encoder.layer.5.lambda_1").block, Block::Attention);
  EXPECT_EQ(place_tensor("backbone.encoder.layer.5.lambda_2").block, Block::Mlp);
  EXPECT_EQ(place_tensor("backbone.encoder.layer.5.lambda_2").layer, 5u);
  // The metric head's own small transformer is the head's, not a stack of the model.
  const TensorPlacement routed =
      place_tensor("metric_head.patch_transformer.transformer_encoder.2.self_attn.query.weight");
  EXPECT_FALSE(routed.layer.has_value());
  EXPECT_EQ(routed.block, Block::LmHead);
  EXPECT_EQ(place_tensor("relative_head.conv3.weight").block, Block::LmHead);
}

TEST(ZoeDepth, RefusesWhatCannotBeKnownOrBuilt) {
  EXPECT_EQ(refusal_of(R"({"model_type":"zoedepth","backbone":"microsoft/beit-large-patch16-384"})").field,
            "backbone_config");
  EXPECT_EQ(refusal_of(replaced(kZoeNyu, R"("model_type":"beit")", R"("model_type":"dinov2")")).field,
            "backbone_config.model_type");
  EXPECT_EQ(refusal_of(replaced(kZoeNyu, R"("softplus")", R"("hybrid2")")).field, "bin_centers_type");
  EXPECT_EQ(refusal_of(replaced(kZoeNyu, R"("project")", R"("concat")")).field, "readout_type");
  EXPECT_EQ(refusal_of(replaced(kZoeNyuKitti, R"("patch_transformer_hidden_size":128,)", "")).field,
            "patch_transformer_hidden_size");
  EXPECT_EQ(refusal_of(replaced(kZoeNyuKitti, R"("name":"kitti",)", "")).field, "bin_configurations[1].name");
}

}  // namespace
}  // namespace ma::test
