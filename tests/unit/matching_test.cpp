// SuperPoint, SuperGlue and LightGlue (model/families/*_model.cpp of group matching). Expected counts are
// the helper's independent count of transformers' module trees (modeling_superpoint.py,
// modeling_superglue.py, modular_lightglue.py; verify/ in the helper's delivery): SuperPoint 1,300,865
// (the model card's ~1.3M), SuperGlue 12,023,297 over its SuperPoint, LightGlue 12,443,729 over its.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

const std::string kMatchingSuperPoint = R"({"model_type":"superpoint"})";
const std::string kMatchingSuperGlue = R"({"model_type":"superglue","keypoint_detector_config":{}})";
const std::string kMatchingLightGlue = R"({"model_type":"lightglue"})";

TEST(Matching, CountsAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(kMatchingSuperPoint), 1'300'865u);
  EXPECT_EQ(parameters_of(kMatchingSuperGlue), 13'324'162u);
  EXPECT_EQ(parameters_of(kMatchingLightGlue), 13'744'594u);
}

TEST(Matching, OrderAndShapes) {
  const ModelTemplate sg = template_of(kMatchingSuperGlue);
  // bin_score is the root module's own parameter: listed before every submodule's.
  EXPECT_EQ(sg.tensors.front().name, "bin_score");
  EXPECT_EQ(find_tensor(sg, "keypoint_detector.encoder.conv_blocks.0.conv_a.weight")->shape,
            (Shape{64, 1, 3, 3}));
  EXPECT_EQ(find_tensor(sg, "keypoint_encoder.encoder.0.linear.weight")->shape, (Shape{32, 3}));
  EXPECT_EQ(find_tensor(sg, "gnn.layers.17.mlp.0.linear.weight")->shape, (Shape{512, 512}));
  EXPECT_EQ(sg.tensors.back().name, "final_projection.final_proj.bias");
  const ModelTemplate lg = template_of(kMatchingLightGlue);
  // SuperPoint's descriptors are already 256 wide: input_projection is an nn.Identity.
  EXPECT_EQ(find_tensor(lg, "input_projection.weight"), nullptr);
  EXPECT_EQ(find_tensor(lg, "positional_encoder.projector.weight")->shape, (Shape{32, 2}));
  EXPECT_LT(tensor_index(lg, "transformer_layers.0.self_mlp.fc2.bias"),
            tensor_index(lg, "transformer_layers.0.self_mlp.layer_norm.weight"));
  EXPECT_EQ(lg.tensors.back().name, "token_confidence.7.token.bias");
  EXPECT_NE(find_tensor(template_of(R"({"model_type":"lightglue","descriptor_dim":128})"),
                        "input_projection.weight"),
            nullptr);
}

TEST(Matching, EveryTensorPlaced) {
  expect_every_tensor_placed(template_of(kMatchingSuperPoint));
  expect_every_tensor_placed(template_of(kMatchingSuperGlue));
  expect_every_tensor_placed(template_of(kMatchingLightGlue));
  EXPECT_EQ(place_tensor("keypoint_detector.encoder.conv_blocks.2.conv_b.weight").block, Block::Vision);
  EXPECT_EQ(place_tensor("bin_score").block, Block::LmHead);
  EXPECT_EQ(place_tensor("keypoint_encoder.encoder.4.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("gnn.layers.3.attention.self.query.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor("match_assignment_layers.2.matchability.weight").block, Block::LmHead);
}

TEST(Matching, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(R"({"model_type":"superpoint","encoder_hidden_sizes":[64]})").field,
            "encoder_hidden_sizes");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"superglue","keypoint_detector_config":{"model_type":"disk"}})").field,
      "keypoint_detector_config.model_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"lightglue","descriptor_dim":250})").field, "num_attention_heads");
}

}  // namespace
}  // namespace ma::test
