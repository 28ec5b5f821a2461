// Deformable DETR (model/families/deformable_detr.cpp over detr_backbone.cpp) on the SenseTime configs. The
// counts are those of transformers 4's DeformableDetrForObjectDetection with timm's resnet50 (the layout of
// the Hub checkpoints): the helper's verify/ rebuilt its module construction with torch.nn and compared every
// state_dict key, shape, order and parameter/buffer kind. The paper gives 40M.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// SenseTime/deformable-detr's config.json (reconstructed), its shape fields: timm's resnet50, four feature
// levels, 300 queries, COCO's 91 label ids.
const std::string kDeformableDetr =
    R"({"model_type":"deformable_detr","architectures":["DeformableDetrForObjectDetection"],
    "use_timm_backbone":true,"backbone":"resnet50","num_channels":3,"d_model":256,"num_feature_levels":4,
    "encoder_layers":6,"decoder_layers":6,"encoder_attention_heads":8,"decoder_attention_heads":8,
    "encoder_ffn_dim":1024,"decoder_ffn_dim":1024,"encoder_n_points":4,"decoder_n_points":4,"num_queries":300,
    "position_embedding_type":"sine","dilation":false,"with_box_refine":false,"two_stage":false,)" +
    id2label_of(91) + "}";

std::string with_box_refine(bool two_stage) {
  const std::string c = replaced(kDeformableDetr, R"("with_box_refine":false)", R"("with_box_refine":true)");
  return two_stage ? replaced(c, R"("two_stage":false)", R"("two_stage":true)") : c;
}

// Without box refinement one classifier and one box MLP serve every decoder layer: class_embed.1..5 are the
// same module as class_embed.0 (counted and stored once): 40,069,665 parameters.
TEST(DeformableDetr, CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kDeformableDetr), 40'069'665u);
  const ModelTemplate t = template_of(kDeformableDetr);
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 545u);
  EXPECT_EQ(d.elements, 40'175'905u);
  // The model's own level_embed precedes its modules; the backbone hands on stages 2 to 4.
  EXPECT_EQ(t.tensors.front().name, "model.level_embed");
  EXPECT_EQ(find_tensor(t, "model.input_proj.0.0.weight")->shape, (Shape{256, 512, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.input_proj.3.0.weight")->shape, (Shape{256, 2048, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.query_position_embeddings.weight")->shape, (Shape{300, 512}));
  EXPECT_EQ(find_tensor(t, "model.encoder.layers.5.self_attn.sampling_offsets.weight")->shape,
            (Shape{256, 256}));
  EXPECT_EQ(find_tensor(t, "model.decoder.layers.5.encoder_attn.attention_weights.weight")->shape,
            (Shape{128, 256}));
  ASSERT_NE(find_tensor(t, "model.decoder.layers.5.self_attn.out_proj.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.reference_points.weight")->shape, (Shape{2, 256}));
  EXPECT_EQ(find_tensor(t, "class_embed.0.weight")->shape, (Shape{91, 256}));
  EXPECT_EQ(find_tensor(t, "class_embed.5.weight")->tied_to, "class_embed.0.weight");
  EXPECT_EQ(find_tensor(t, "bbox_embed.5.layers.2.bias")->tied_to, "bbox_embed.0.layers.2.bias");
  EXPECT_EQ(find_tensor(t, "model.decoder.bbox_embed.0.layers.0.weight"), nullptr);
}

// With box refinement: six independent heads, the box heads also the decoder's (listed there first).
// Two-stage: a seventh head pair for the proposals, the classifiers on the decoder too, and the proposal
// layers instead of query_position_embeddings and reference_points.
TEST(DeformableDetr, VariantsCountAsTransformersBuildThem) {
  EXPECT_EQ(parameters_of(with_box_refine(false)), 40'849'660u);
  const ModelTemplate refine = template_of(with_box_refine(false));
  EXPECT_EQ(find_tensor(refine, "class_embed.5.weight")->tied_to, "");
  EXPECT_EQ(find_tensor(refine, "bbox_embed.5.layers.0.weight")->tied_to,
            "model.decoder.bbox_embed.5.layers.0.weight");
  EXPECT_LT(tensor_index(refine, "model.decoder.bbox_embed.5.layers.2.bias"),
            tensor_index(refine, "model.reference_points.weight"));

  EXPECT_EQ(parameters_of(with_box_refine(true)), 41'181'529u);
  const ModelTemplate two_stage = template_of(with_box_refine(true));
  EXPECT_EQ(disk_totals(two_stage).tensors, 598u);
  EXPECT_EQ(find_tensor(two_stage, "class_embed.6.weight")->tied_to, "model.decoder.class_embed.6.weight");
  EXPECT_EQ(find_tensor(two_stage, "model.pos_trans.weight")->shape, (Shape{512, 512}));
  EXPECT_EQ(find_tensor(two_stage, "model.query_position_embeddings.weight"), nullptr);

  EXPECT_EQ(
      parameters_of(replaced(kDeformableDetr, "DeformableDetrForObjectDetection", "DeformableDetrModel")),
      39'913'666u);
  EXPECT_EQ(parameters_of(R"({"model_type":"deformable_detr"})"), 39'913'666u);
}

TEST(DeformableDetr, RefusesWhatTransformersCannotBuild) {
  // DeformableDetrConfig raises on two_stage without with_box_refine.
  EXPECT_EQ(refusal_of(replaced(kDeformableDetr, R"("two_stage":false)", R"("two_stage":true)")).field,
            "with_box_refine");
  EXPECT_EQ(refusal_of(replaced(kDeformableDetr, R"("d_model":256)", R"("d_model":200)")).field, "d_model");
  EXPECT_EQ(refusal_of(replaced(kDeformableDetr, R"("sine")", R"("rope")")).field, "position_embedding_type");
}

TEST(DeformableDetr, PlacesEveryTensor) {
  for (const std::string& config : {kDeformableDetr, with_box_refine(false), with_box_refine(true)})
    expect_every_tensor_placed(template_of(config));
  const TensorPlacement proj = place_tensor("model.input_proj.3.1.weight");
  EXPECT_EQ(proj.block, Block::VisionProjector);
  EXPECT_FALSE(proj.layer.has_value());
  EXPECT_EQ(place_tensor("model.encoder.layers.2.self_attn.value_proj.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor("model.decoder.layers.2.encoder_attn.value_proj.weight").block,
            Block::CrossAttention);
  EXPECT_EQ(place_tensor("model.reference_points.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("model.decoder.bbox_embed.4.layers.1.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("class_embed.6.bias").block, Block::LmHead);
}

}  // namespace
}  // namespace ma::test
