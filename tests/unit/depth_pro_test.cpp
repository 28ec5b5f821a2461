// Depth Pro (model/families/depth_pro_model.cpp) on apple/DepthPro-hf's config. The counts are those of
// transformers' DepthProForDepthEstimation and DepthProModel: the helper's verify/ rebuilt their module trees
// (three Dinov2Model encoders, the neck, the fusion stage, the heads) with torch.nn and compared every
// state_dict key, shape and their order; the full model's total is also the published one.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// apple/DepthPro-hf's config.json (reconstructed), the fields that shape the model: three DINOv2-L/16
// encoders of 384-pixel patches, the field-of-view model on.
const std::string kDinov2L16 =
    R"({"model_type":"dinov2","hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,)"
    R"("patch_size":16,"image_size":384,"mlp_ratio":4})";
const std::string kDepthPro =
    R"({"model_type":"depth_pro","architectures":["DepthProForDepthEstimation"],"fusion_hidden_size":256,)"
    R"("patch_size":384,"intermediate_hook_ids":[11,5],"intermediate_feature_dims":[256,256],)"
    R"("scaled_images_ratios":[0.25,0.5,1],"scaled_images_overlap_ratios":[0.0,0.5,0.25],)"
    R"("scaled_images_feature_dims":[1024,1024,512],"use_batch_norm_in_fusion_residual":false,)"
    R"("use_bias_in_fusion_residual":true,"use_fov_model":true,"num_fov_head_layers":2,"image_model_config":)" +
    kDinov2L16 + R"(,"patch_model_config":)" + kDinov2L16 + R"(,"fov_model_config":)" + kDinov2L16 + "}";

// The Depth Pro paper and model card: 952M. Each encoder is 303,740,928 (DINOv2-L's 24 layers of
// 12,598,272 and 577 positions of 1,024 at 384 pixels in 16-pixel patches); the rest 40,771,618.
TEST(DepthPro, CountsAsPublished) {
  EXPECT_EQ(parameters_of(kDepthPro), 951'994'402u);
  EXPECT_EQ(parameters_of(replaced(kDepthPro, R"("use_fov_model":true)", R"("use_fov_model":false)")),
            647'733'825u);
  // DepthProModel: the two encoders and the neck, under no prefix.
  EXPECT_EQ(parameters_of(replaced(kDepthPro, "DepthProForDepthEstimation", "DepthProModel")), 634'157'056u);
}

TEST(DepthPro, EncodersNeckFusionAndHeads) {
  const ModelTemplate t = template_of(kDepthPro);
  // DepthProConfig makes every encoder's image_size its patch_size: 24 x 24 patches and the class token.
  EXPECT_EQ(find_tensor(t, "depth_pro.encoder.patch_encoder.model.embeddings.position_embeddings")->shape,
            (Shape{1, 577, 1024}));
  EXPECT_LT(tensor_index(t, "depth_pro.encoder.patch_encoder.model.layernorm.bias"),
            tensor_index(t, "depth_pro.encoder.image_encoder.model.embeddings.cls_token"));
  EXPECT_EQ(find_tensor(t, "depth_pro.neck.feature_upsample.intermediate.1.layers.3.weight")->shape,
            (Shape{256, 256, 2, 2}));
  // The last projection is an nn.Identity: its input is already fusion_hidden_size wide.
  EXPECT_NE(find_tensor(t, "depth_pro.neck.feature_projection.projections.3.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "depth_pro.neck.feature_projection.projections.4.weight"), nullptr);
  // Fusion layers register residual units, deconvolution, projection; the final one has no deconvolution.
  EXPECT_LT(tensor_index(t, "fusion_stage.intermediate.0.deconv.weight"),
            tensor_index(t, "fusion_stage.intermediate.0.projection.weight"));
  EXPECT_EQ(find_tensor(t, "fusion_stage.final.deconv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "head.layers.4.weight")->shape, (Shape{1, 32, 1, 1}));
  // The field-of-view head's last kernel covers what two stride-2 convs leave of the 24 x 24 grid: 6 x 6.
  EXPECT_EQ(find_tensor(t, "fov_model.head.layers.4.weight")->shape, (Shape{1, 32, 6, 6}));
  EXPECT_EQ(t.tensors.back().name, "fov_model.head.layers.4.bias");
}

TEST(DepthPro, EncodersOnLayersTheRestOnTheHead) {
  const ModelTemplate t = template_of(kDepthPro);
  expect_every_tensor_placed(t);
  const TensorPlacement q =
      place_tensor("depth_pro.encoder.image_encoder.model.encoder.layer.7.attention.attention.query.weight");
  EXPECT_EQ(q.layer, 7u);
  EXPECT_EQ(q.block, Block::Attention);
  const TensorPlacement up = place_tensor("depth_pro.neck.feature_upsample.scaled_images.1.layers.1.weight");
  EXPECT_FALSE(up.layer.has_value());
  EXPECT_EQ(up.block, Block::LmHead);
  EXPECT_EQ(place_tensor("fusion_stage.intermediate.2.projection.weight").block, Block::LmHead);
  EXPECT_FALSE(place_tensor("fusion_stage.intermediate.2.projection.weight").layer.has_value());
  EXPECT_EQ(place_tensor("fov_model.conv.weight").block, Block::LmHead);
}

TEST(DepthPro, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(
      refusal_of(replaced(kDepthPro, R"("intermediate_hook_ids":[11,5])", R"("intermediate_hook_ids":[11])"))
          .field,
      "intermediate_feature_dims");
  const std::string vit_patches = R"("patch_model_config":{"model_type":"vit")";
  EXPECT_EQ(
      refusal_of(replaced(kDepthPro, R"("patch_model_config":{"model_type":"dinov2")", vit_patches)).field,
      "patch_model_config.model_type");
  EXPECT_EQ(refusal_of(replaced(kDepthPro, R"("num_fov_head_layers":2)", R"("num_fov_head_layers":9)")).field,
            "num_fov_head_layers");
  EXPECT_EQ(
      refusal_of(replaced(kDepthPro, "DepthProForDepthEstimation", "DepthProForImageClassification")).field,
      "architectures");
}

}  // namespace
}  // namespace ma::test
