// OmDet-Turbo (model/families/omdet_turbo.cpp over omdet_turbo_timm_swin.cpp, swin.cpp's SwinBackbone, CLIP's
// text tower and RT-DETR's CCFM neck). The counts are those of transformers' OmDetTurboForObjectDetection
// (modeling_omdet_turbo.py, configuration_omdet_turbo.py): an independent rebuild of its module
// construction with torch.nn (timm's features_only Swin, CLIPTextModel) and compared every state_dict key,
// shape, order and parameter/buffer kind. Cross-checks from published figures: the timm Swin-T body plus its
// final norm and 1,000-class head gives timm's 28,288,354 for swin_tiny_patch4_window7_224, and the language
// backbone is CLIP ViT-B's 63,165,952-parameter text model plus a 512 x 512 text_projection.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// OmDetTurboConfig's defaults (the class documents them as omlab/omdet-turbo-swin-tiny-hf's): timm's
// swin_tiny_patch4_window7_224 handing on stages 1 to 3, CLIP's default text model, a 256-wide hybrid
// encoder with one AIFI layer and six decoder layers.
const std::string kOmdetTurboTiny =
    R"({"model_type":"omdet-turbo","architectures":["OmDetTurboForObjectDetection"],"use_timm_backbone":true,
    "backbone":"swin_tiny_patch4_window7_224","image_size":640,"text_config":{"model_type":"clip_text_model"},
    "text_projection_in_dim":512,"text_projection_out_dim":512,"class_embed_dim":512,"encoder_hidden_dim":256,
    "encoder_in_channels":[192,384,768],"encoder_projection_indices":[2],"encoder_layers":1,
    "decoder_hidden_dim":256,"decoder_num_layers":6,"decoder_num_heads":8,"num_queries":900,
    "learn_initial_query":false})";

// The same detector on transformers' SwinBackbone (use_timm_backbone false), Swin-T handing on stages 2 to 4.
std::string omdet_turbo_on_hf_swin() {
  const std::string c =
      replaced(kOmdetTurboTiny, R"("use_timm_backbone":true)", R"("use_timm_backbone":false)");
  return replaced(
      c, R"("backbone":"swin_tiny_patch4_window7_224")",
      R"("backbone":null,"backbone_config":{"model_type":"swin","window_size":7,"image_size":640,)"
      R"("embed_dim":96,"depths":[2,2,6,2],"num_heads":[3,6,12,24],"out_indices":[2,3,4]})");
}

// 115,406,806 parameters: the timm Swin-T features (27,517,818) and three LayerNorms, the CLIP text model
// and its projection (63,428,096), the hybrid encoder (11,902,720), the decoder (12,555,484).
TEST(OmdetTurbo, TinyCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kOmdetTurboTiny), 115'406'806u);
  EXPECT_EQ(parameters_of(R"({"model_type":"omdet-turbo"})"), 115'406'806u);  // the config class's defaults
  const ModelTemplate t = template_of(kOmdetTurboTiny);
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 868u);
  EXPECT_EQ(d.elements, 115'428'352u);
  // timm's Swin: each stage opens with the previous one's patch merging; the bias table is the attention's
  // own parameter, before its fused qkv.
  const std::string swin = "vision_backbone.vision_backbone._backbone.";
  EXPECT_EQ(find_tensor(t, swin + "patch_embed.proj.weight")->shape, (Shape{96, 3, 4, 4}));
  EXPECT_EQ(find_tensor(t, swin + "layers_0.downsample.norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, swin + "layers_3.downsample.reduction.weight")->shape, (Shape{768, 1536}));
  EXPECT_LT(tensor_index(t, swin + "layers_0.blocks.0.attn.relative_position_bias_table"),
            tensor_index(t, swin + "layers_0.blocks.0.attn.qkv.weight"));
  EXPECT_EQ(find_tensor(t, swin + "layers_2.blocks.5.attn.relative_position_bias_table")->shape,
            (Shape{169, 12}));
  EXPECT_EQ(find_tensor(t, "vision_backbone.layer_norms.2.weight")->shape, (Shape{768}));
  // The language backbone's own parameter comes before its CLIP model's in named_parameters.
  EXPECT_LT(tensor_index(t, "language_backbone.text_projection"),
            tensor_index(t, "language_backbone.model.text_model.embeddings.token_embedding.weight"));
  EXPECT_EQ(find_tensor(t, "encoder.channel_projection_layers.0.0.weight")->shape, (Shape{256, 192, 1, 1}));
  ASSERT_NE(find_tensor(t, "encoder.channel_projection_layers.0.1.num_batches_tracked"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.encoder.0.layers.0.self_attn.query.weight")->shape, (Shape{256, 256}));
  EXPECT_EQ(find_tensor(t, "encoder.encoder.0.layers.0.fc1.weight")->shape, (Shape{2048, 256}));
  EXPECT_EQ(find_tensor(t, "encoder.pan_blocks.1.bottlenecks.2.conv1.conv.weight")->shape,
            (Shape{256, 256, 3, 3}));
  // class_embed_dim 512 differs from the decoder's 256: task_project exists; no tgt_embed by default.
  EXPECT_EQ(find_tensor(t, "decoder.task_project.weight")->shape, (Shape{256, 512}));
  EXPECT_EQ(find_tensor(t, "decoder.tgt_embed.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "decoder.layers.5.cross_attn.sampling_offsets.weight")->shape, (Shape{192, 256}));
  EXPECT_EQ(find_tensor(t, "decoder.decoder_class_head.5.weight")->shape, (Shape{256, 512}));
  EXPECT_EQ(find_tensor(t, "decoder.decoder_bbox_head.5.layers.2.weight")->shape, (Shape{4, 256}));
}

// SwinBackbone adds a LayerNorm per stage it hands on (2,688 parameters); learn_initial_query adds the
// 900-row query table, class_embed_dim 256 drops task_project and narrows the text-side heads.
TEST(OmdetTurbo, VariantsCountAsTransformersBuildThem) {
  EXPECT_EQ(parameters_of(omdet_turbo_on_hf_swin()), 115'409'494u);
  const ModelTemplate hf = template_of(omdet_turbo_on_hf_swin());
  EXPECT_EQ(find_tensor(hf, "vision_backbone.vision_backbone.hidden_states_norms.stage4.weight")->shape,
            (Shape{768}));
  const std::string variant =
      replaced(replaced(kOmdetTurboTiny, R"("learn_initial_query":false)", R"("learn_initial_query":true)"),
               R"("class_embed_dim":512)", R"("class_embed_dim":256)");
  EXPECT_EQ(parameters_of(variant), 114'522'070u);
  const ModelTemplate v = template_of(variant);
  EXPECT_EQ(find_tensor(v, "decoder.task_project.weight"), nullptr);
  EXPECT_EQ(find_tensor(v, "decoder.tgt_embed.weight")->shape, (Shape{900, 256}));
}

TEST(OmdetTurbo, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kOmdetTurboTiny, R"("text_config":{"model_type":"clip_text_model"})",
                                R"("text_config":{"hidden_size":512})"))
                .field,
            "text_config.model_type");
  EXPECT_EQ(
      refusal_of(replaced(kOmdetTurboTiny, R"("decoder_num_heads":8)", R"("decoder_num_heads":7)")).field,
      "decoder_num_heads");
  EXPECT_EQ(refusal_of(replaced(kOmdetTurboTiny, R"("backbone":"swin_tiny_patch4_window7_224")",
                                R"("backbone":null)"))
                .field,
            "backbone");
  EXPECT_EQ(
      refusal_of(replaced(omdet_turbo_on_hf_swin(), R"("model_type":"swin")", R"("model_type":"resnet")"))
          .field,
      "backbone_config.model_type");
  EXPECT_EQ(refusal_of(replaced(kOmdetTurboTiny, "swin_tiny_patch4_window7_224", "convnext_tiny")).kind,
            ErrorKind::Unsupported);
}

// The Swin and its LayerNorms are the vision tower; the channel projections are projectors, as RT-DETR's
// input projections; the query selection and the per-layer heads are heads; the task encoder and task_project
// embed the prompt; query_position_head makes the queries' positions.
TEST(OmdetTurbo, EveryTensorIsPlaced) {
  const ModelTemplate t = template_of(kOmdetTurboTiny);
  expect_every_tensor_placed(t);
  expect_every_tensor_placed(template_of(omdet_turbo_on_hf_swin()));
  EXPECT_EQ(place_tensor("vision_backbone.vision_backbone._backbone.layers_1.blocks.0.attn.qkv.weight").block,
            Block::Vision);
  EXPECT_EQ(place_tensor("encoder.channel_projection_layers.1.0.weight").block, Block::VisionProjector);
  EXPECT_EQ(place_tensor("decoder.encoder_class_head.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("decoder.decoder_bbox_head.3.layers.1.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("decoder.task_project.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("decoder.query_position_head.layers.1.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("decoder.layers.2.cross_attn.value_proj.weight").block, Block::CrossAttention);
}

}  // namespace
}  // namespace ma::test
