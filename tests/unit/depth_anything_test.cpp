// Depth Anything and Prompt Depth Anything (model/families/depth_anything_*.cpp) on their Hub configs. The
// counts are those of transformers' DepthAnythingForDepthEstimation and
// PromptDepthAnythingForDepthEstimation: the helper's verify/ rebuilt their module trees (Dinov2Backbone,
// neck, head) with torch.nn and compared every state_dict key, shape and their order; the V2 totals are also
// the published ones.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// depth-anything/Depth-Anything-V2-{Small,Base,Large}-hf's config.json (reconstructed), the fields that shape
// the model: a DINOv2 backbone at 518 pixels, the neck's four widths, the fusion width.
std::string depth_anything_v2(uint64_t hidden, uint64_t layers, uint64_t heads, const std::string& neck,
                              uint64_t fusion, const std::string& model_type = "depth_anything",
                              const std::string& cls = "DepthAnythingForDepthEstimation") {
  return R"({"model_type":")" + model_type + R"(","architectures":[")" + cls +
         R"("],"backbone":null,"use_timm_backbone":false,"use_pretrained_backbone":false,)"
         R"("backbone_config":{"model_type":"dinov2","architectures":["Dinov2Model"],"image_size":518,)"
         R"("patch_size":14,"hidden_size":)" +
         std::to_string(hidden) + R"(,"num_hidden_layers":)" + std::to_string(layers) +
         R"(,"num_attention_heads":)" + std::to_string(heads) +
         R"(,"out_indices":[9,10,11,12],"reshape_hidden_states":false},"patch_size":14,)"
         R"("reassemble_hidden_size":)" +
         std::to_string(hidden) + R"(,"reassemble_factors":[4,2,1,0.5],"neck_hidden_sizes":)" + neck +
         R"(,"fusion_hidden_size":)" + std::to_string(fusion) +
         R"(,"head_hidden_size":32,"head_in_index":-1,"depth_estimation_type":"relative"})";
}
const std::string kSmall = depth_anything_v2(384, 12, 6, "[48,96,192,384]", 64);
const std::string kBase = depth_anything_v2(768, 12, 12, "[96,192,384,768]", 128);
const std::string kLarge = depth_anything_v2(1024, 24, 16, "[256,512,1024,1024]", 256);

// The Depth Anything V2 paper and model cards: 24.8M, 97.5M and 335.3M. Each is its DINOv2 (22,056,576 /
// 86,580,480 / 304,368,640, the dinov2 test's counts) and a neck and head: 2,728,513 in the small one.
TEST(DepthAnything, V2SizesCountAsPublished) {
  EXPECT_EQ(parameters_of(kSmall), 24'785'089u);
  EXPECT_EQ(parameters_of(kBase), 97'470'785u);
  EXPECT_EQ(parameters_of(kLarge), 335'315'649u);
  // DepthAnythingConfig() alone is the small model (LiheYoung/depth-anything-small-hf's shape).
  EXPECT_EQ(parameters_of(R"({"model_type":"depth_anything"})"), 24'785'089u);
  // A metric checkpoint only swaps the head's final activation.
  EXPECT_EQ(parameters_of(replaced(kSmall, R"("relative")", R"("metric","max_depth":20)")), 24'785'089u);
}

TEST(DepthAnything, BackboneNeckAndHeadInRegistrationOrder) {
  const ModelTemplate t = template_of(kSmall);
  ASSERT_FALSE(t.tensors.empty());
  EXPECT_EQ(t.tensors.front().name, "backbone.embeddings.cls_token");
  EXPECT_EQ(t.tensors.back().name, "head.conv3.bias");
  EXPECT_LT(tensor_index(t, "backbone.layernorm.bias"),
            tensor_index(t, "neck.reassemble_stage.layers.0.projection.weight"));
  EXPECT_EQ(find_tensor(t, "backbone.embeddings.position_embeddings")->shape, (Shape{1, 1370, 384}));
  // Factor 4 and 2: a ConvTranspose2d of that kernel ([in, out, k, k]); 1: nn.Identity; 0.5: a 3 x 3 Conv2d.
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.layers.0.resize.weight")->shape, (Shape{48, 48, 4, 4}));
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.layers.1.resize.weight")->shape, (Shape{96, 96, 2, 2}));
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.layers.2.resize.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "neck.reassemble_stage.layers.3.resize.weight")->shape, (Shape{384, 384, 3, 3}));
  EXPECT_EQ(find_tensor(t, "neck.convs.0.weight")->shape, (Shape{64, 48, 3, 3}));
  EXPECT_EQ(find_tensor(t, "neck.convs.0.bias"), nullptr);
  // The first fusion layer never reads its residual_layer1 but registers it.
  EXPECT_NE(find_tensor(t, "neck.fusion_stage.layers.0.residual_layer1.convolution1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "head.conv1.weight")->shape, (Shape{32, 64, 3, 3}));
  EXPECT_EQ(find_tensor(t, "head.conv3.weight")->shape, (Shape{1, 32, 1, 1}));
}

// Prompt Depth Anything adds a prompt_depth_layer (1 -> F -> F -> F, 3 x 3) to each of the four fusion
// layers: 4 x 74,496 in the ViT-S model, 4 x 1,182,720 in the ViT-L one.
TEST(PromptDepthAnything, AddsThePromptDepthLayers) {
  const std::string vits = depth_anything_v2(384, 12, 6, "[48,96,192,384]", 64, "prompt_depth_anything",
                                             "PromptDepthAnythingForDepthEstimation");
  const std::string vitl =
      depth_anything_v2(1024, 24, 16, "[256,512,1024,1024]", 256, "prompt_depth_anything",
                        "PromptDepthAnythingForDepthEstimation");
  EXPECT_EQ(parameters_of(vits), 25'083'073u);
  EXPECT_EQ(parameters_of(vitl), 340'046'529u);
  const ModelTemplate t = template_of(vits);
  EXPECT_EQ(find_tensor(t, "neck.fusion_stage.layers.3.prompt_depth_layer.convolution1.weight")->shape,
            (Shape{64, 1, 3, 3}));
  EXPECT_LT(tensor_index(t, "neck.fusion_stage.layers.0.residual_layer2.convolution2.bias"),
            tensor_index(t, "neck.fusion_stage.layers.0.prompt_depth_layer.convolution1.weight"));
}

TEST(DepthAnything, BackboneOnLayersNeckAndHeadOnTheHead) {
  const ModelTemplate t = template_of(kSmall);
  expect_every_tensor_placed(t);
  const TensorPlacement fc1 = place_tensor("backbone.encoder.layer.3.mlp.fc1.weight");
  EXPECT_EQ(fc1.layer, 3u);
  EXPECT_EQ(fc1.block, Block::Mlp);
  EXPECT_EQ(place_tensor("backbone.encoder.layer.3.layer_scale1.lambda1").block, Block::Attention);
  EXPECT_EQ(place_tensor("backbone.encoder.layer.3.layer_scale2.lambda1").block, Block::Mlp);
  const TensorPlacement fusion = place_tensor("neck.fusion_stage.layers.2.projection.weight");
  EXPECT_FALSE(fusion.layer.has_value());  // four fusion layers are no stack of the model
  EXPECT_EQ(fusion.block, Block::LmHead);
  EXPECT_EQ(place_tensor("head.conv1.weight").block, Block::LmHead);
}

TEST(DepthAnything, RefusesWhatCannotBeKnownOrBuilt) {
  // A backbone named only by `backbone`: load_backbone fetches it elsewhere; config.json has no shape.
  EXPECT_EQ(refusal_of(R"({"model_type":"depth_anything","backbone":"facebook/dinov2-small"})").field,
            "backbone_config");
  EXPECT_EQ(refusal_of(R"({"model_type":"depth_anything","backbone":"vit_small_patch14_dinov2",)"
                       R"("use_timm_backbone":true})")
                .field,
            "use_timm_backbone");
  EXPECT_EQ(refusal_of(replaced(kSmall, R"("backbone":null)", R"("backbone":"facebook/dinov2-small")")).field,
            "backbone");
  EXPECT_EQ(refusal_of(replaced(kSmall, R"("model_type":"dinov2")", R"("model_type":"beit")")).field,
            "backbone_config.model_type");
  EXPECT_EQ(refusal_of(replaced(kSmall, R"("num_attention_heads":6)", R"("num_attention_heads":7)")).field,
            "backbone_config.num_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kSmall, "[4,2,1,0.5]", "[4,2.5,1,0.5]")).field, "reassemble_factors");
  EXPECT_EQ(refusal_of(replaced(kSmall, R"("relative")", R"("absolute")")).field, "depth_estimation_type");
}

}  // namespace
}  // namespace ma::test
