// DETR and Table Transformer (model/families/detr*.cpp, table_transformer.cpp) on their Hub configs. The
// counts are those of transformers' own classes (modeling_detr.py, modeling_table_transformer.py) with timm's
// ResNets: the helper's verify/ rebuilt their module construction on the meta device and compared every
// state_dict key, shape, order and parameter/buffer kind. The backbone's BatchNorms are
// DetrFrozenBatchNorm2d, whose weight, bias and running statistics are all buffers: a backbone's parameters
// are its convolutions.
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/detr-resnet-50's config.json (reconstructed), its shape fields: COCO's 91 label ids (0..90).
const std::string kDetrResnet50 =
    R"({"model_type":"detr","architectures":["DetrForObjectDetection"],"use_timm_backbone":true,
    "backbone":"resnet50","num_channels":3,"num_queries":100,"d_model":256,"encoder_layers":6,
    "decoder_layers":6,"encoder_attention_heads":8,"decoder_attention_heads":8,"encoder_ffn_dim":2048,
    "decoder_ffn_dim":2048,"position_embedding_type":"sine","dilation":false,)" +
    id2label_of(91) + "}";

// microsoft/table-transformer-detection's config.json (reconstructed): ResNet-18, 15 queries, two labels
// (table, table rotated).
const std::string kTableDetection =
    R"({"model_type":"table-transformer","architectures":["TableTransformerForObjectDetection"],
    "use_timm_backbone":true,"backbone":"resnet18","num_queries":15,"d_model":256,"encoder_layers":6,
    "decoder_layers":6,"encoder_attention_heads":8,"decoder_attention_heads":8,"encoder_ffn_dim":2048,
    "decoder_ffn_dim":2048,"position_embedding_type":"sine",)" +
    id2label_of(2) + "}";

// ---- DETR ----

// DetrForObjectDetection(facebook/detr-resnet-50): 41,524,768 parameters, 23,454,912 of them the ResNet-50's
// convolutions (the DETR paper's "41M"). Its checkpoint also stores 212 frozen-BN buffers of 106,240 values:
// 530 tensors, 41,631,008 values (the Hub's 41.6M).
TEST(Detr, Resnet50CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kDetrResnet50), 41'524'768u);
  const ModelTemplate t = template_of(kDetrResnet50);
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 530u);
  EXPECT_EQ(d.elements, 41'631'008u);
  const std::string bb = "model.backbone.conv_encoder.model.";
  for (const char* leaf : {"weight", "bias", "running_mean", "running_var"}) {
    const TemplateTensor* bn = find_tensor(t, bb + "layer1.0.downsample.1." + leaf);
    ASSERT_NE(bn, nullptr) << leaf;
    EXPECT_EQ(bn->kind, TensorKind::Buffer) << leaf;
    EXPECT_EQ(bn->shape, (Shape{256}));
  }
  EXPECT_EQ(find_tensor(t, bb + "bn1.num_batches_tracked"), nullptr);  // frozen: none
  EXPECT_EQ(find_tensor(t, bb + "conv1.weight")->shape, (Shape{64, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, bb + "layer4.2.conv3.weight")->shape, (Shape{2048, 512, 1, 1}));
  EXPECT_EQ(find_tensor(t, bb + "fc.weight"), nullptr);  // features_only drops the classifier
  EXPECT_EQ(find_tensor(t, "model.input_projection.weight")->shape, (Shape{256, 2048, 1, 1}));
  EXPECT_EQ(find_tensor(t, "class_labels_classifier.weight")->shape, (Shape{92, 256}));  // + "no object"
  EXPECT_EQ(find_tensor(t, "bbox_predictor.layers.2.weight")->shape, (Shape{4, 256}));
  // Registration order: backbone, projection, queries, encoder (DetrAttention's k, v, q, out), decoder.
  EXPECT_LT(tensor_index(t, bb + "layer4.2.bn3.running_var"),
            tensor_index(t, "model.input_projection.weight"));
  EXPECT_LT(tensor_index(t, "model.query_position_embeddings.weight"),
            tensor_index(t, "model.encoder.layers.0.self_attn.k_proj.weight"));
  EXPECT_LT(tensor_index(t, "model.encoder.layers.0.self_attn.v_proj.weight"),
            tensor_index(t, "model.encoder.layers.0.self_attn.q_proj.weight"));
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 6u);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 6u);
  ASSERT_NE(t.arch.stack(StackRole::Vision), nullptr);
  EXPECT_TRUE(t.arch.post_norm);
}

// facebook/detr-resnet-101: ResNet-101's 23 blocks in layer3 (DETR paper: "60M"); DetrModel drops the heads;
// DC5 (dilation) dilates layer4 without a weight more; learned positions add two 50 x 128 tables.
TEST(Detr, VariantsCountAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(replaced(kDetrResnet50, R"("resnet50")", R"("resnet101")")), 60'464'672u);
  EXPECT_EQ(parameters_of(replaced(kDetrResnet50, "DetrForObjectDetection", "DetrModel")), 41'368'512u);
  EXPECT_EQ(parameters_of(replaced(kDetrResnet50, R"("dilation":false)", R"("dilation":true)")), 41'524'768u);
  const std::string learned = replaced(kDetrResnet50, R"("sine")", R"("learned")");
  EXPECT_EQ(parameters_of(learned), 41'537'568u);
  EXPECT_EQ(
      find_tensor(template_of(learned), "model.backbone.position_embedding.row_embeddings.weight")->shape,
      (Shape{50, 128}));
}

// DetrForSegmentation (facebook/detr-resnet-50-panoptic's 250 labels): DetrForObjectDetection under detr.,
// the mask head over layer3, layer2 and layer1 (1024, 512, 256 channels) and the bbox attention.
TEST(Detr, PanopticSegmentationAddsTheMaskHead) {
  const std::string panoptic =
      replaced(replaced(kDetrResnet50, "DetrForObjectDetection", "DetrForSegmentation"), id2label_of(91),
               id2label_of(250));
  EXPECT_EQ(parameters_of(panoptic), 42'899'288u);
  const ModelTemplate t = template_of(panoptic);
  EXPECT_EQ(find_tensor(t, "detr.class_labels_classifier.weight")->shape, (Shape{251, 256}));
  EXPECT_EQ(find_tensor(t, "mask_head.lay1.weight")->shape, (Shape{264, 264, 3, 3}));  // d_model + heads
  EXPECT_EQ(find_tensor(t, "mask_head.adapter1.weight")->shape, (Shape{128, 1024, 1, 1}));
  EXPECT_EQ(find_tensor(t, "mask_head.adapter3.weight")->shape, (Shape{32, 256, 1, 1}));
  EXPECT_EQ(find_tensor(t, "mask_head.out_lay.weight")->shape, (Shape{1, 16, 3, 3}));
  ASSERT_NE(find_tensor(t, "bbox_attention.k_linear.bias"), nullptr);
}

// use_timm_backbone false: transformers' ResNetBackbone (DetrConfig's default ResNetConfig is ResNet-50's),
// its own module names, the same count.
TEST(Detr, TransformersResNetBackboneCountsTheSame) {
  const std::string no_timm = replaced(replaced(kDetrResnet50, R"("backbone":"resnet50",)", ""),
                                       R"("use_timm_backbone":true)", R"("use_timm_backbone":false)");
  EXPECT_EQ(parameters_of(no_timm), 41'524'768u);
  const ModelTemplate t = template_of(no_timm);
  const std::string bb = "model.backbone.conv_encoder.model.";
  EXPECT_EQ(find_tensor(t, bb + "embedder.embedder.convolution.weight")->shape, (Shape{64, 3, 7, 7}));
  EXPECT_EQ(find_tensor(t, bb + "encoder.stages.0.layers.0.shortcut.normalization.running_var")->kind,
            TensorKind::Buffer);
  const std::string r101 = replaced(
      no_timm, R"("use_timm_backbone":false)",
      R"("use_timm_backbone":false,"backbone_config":{"model_type":"resnet","depths":[3,4,23,3],"out_features":["stage4"]})");
  EXPECT_EQ(parameters_of(r101), 60'464'672u);
}

TEST(Detr, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kDetrResnet50, R"("sine")", R"("rope")")).field, "position_embedding_type");
  EXPECT_EQ(
      refusal_of(replaced(kDetrResnet50, R"("encoder_attention_heads":8)", R"("encoder_attention_heads":7)"))
          .field,
      "encoder_attention_heads");
  // DetrConfig refuses a backbone_config beside use_timm_backbone.
  EXPECT_EQ(refusal_of(replaced(kDetrResnet50, R"("backbone":"resnet50")",
                                R"("backbone":"resnet50","backbone_config":{"model_type":"resnet"})"))
                .field,
            "backbone_config");
  EXPECT_EQ(refusal_of(replaced(kDetrResnet50, R"("use_timm_backbone":true)",
                                R"("use_timm_backbone":false,"backbone_config":{"model_type":"swin"})"))
                .field,
            "backbone_config.model_type");
  EXPECT_EQ(refusal_of(replaced(kDetrResnet50, R"("resnet50")", R"("resnet50d")")).kind,
            ErrorKind::Unsupported);
  // DetrForSegmentation's mask head needs three feature maps; DetrConfig's default ResNetConfig gives one.
  EXPECT_EQ(refusal_of(replaced(replaced(kDetrResnet50, "DetrForObjectDetection", "DetrForSegmentation"),
                                R"("use_timm_backbone":true)", R"("use_timm_backbone":false)"))
                .field,
            "backbone_config.out_features");
}

// ---- Table Transformer ----

// TableTransformerForObjectDetection(microsoft/table-transformer-detection): 28,799,431 parameters (the
// Hub's 28.8M), 11,166,912 of them ResNet-18's convolutions. Pre-norm layers and a final encoder LayerNorm.
TEST(TableTransformer, DetectionCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kTableDetection), 28'799'431u);
  // microsoft/table-transformer-structure-recognition: 125 queries, six labels.
  EXPECT_EQ(parameters_of(replaced(replaced(kTableDetection, R"("num_queries":15)", R"("num_queries":125)"),
                                   id2label_of(2), id2label_of(6))),
            28'828'619u);
  const ModelTemplate t = template_of(kTableDetection);
  ASSERT_NE(find_tensor(t, "model.encoder.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.input_projection.weight")->shape, (Shape{256, 512, 1, 1}));
  EXPECT_EQ(find_tensor(t, "model.backbone.conv_encoder.model.layer1.0.downsample.0.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "class_labels_classifier.weight")->shape, (Shape{3, 256}));
  EXPECT_FALSE(t.arch.post_norm);
  EXPECT_EQ(refusal_of(replaced(kTableDetection, "TableTransformerForObjectDetection",
                                "TableTransformerForSegmentation"))
                .kind,
            ErrorKind::Unsupported);
}

// Every tensor in a block of its own: the backbone in vision, the projection in the projector, the heads in
// the head block (bbox_predictor's layers.N are no stack).
TEST(Detr, PlacesEveryTensor) {
  const std::string panoptic = replaced(kDetrResnet50, "DetrForObjectDetection", "DetrForSegmentation");
  for (const std::string& config : {kDetrResnet50, panoptic, kTableDetection})
    expect_every_tensor_placed(template_of(config));
  EXPECT_EQ(place_tensor("model.backbone.conv_encoder.model.layer2.3.conv1.weight").block, Block::Vision);
  EXPECT_EQ(place_tensor("model.input_projection.weight").block, Block::VisionProjector);
  const TensorPlacement box = place_tensor("detr.bbox_predictor.layers.1.weight");
  EXPECT_EQ(box.block, Block::LmHead);
  EXPECT_FALSE(box.layer.has_value());
  EXPECT_EQ(place_tensor("mask_head.gn3.weight").block, Block::LmHead);
}

}  // namespace
}  // namespace ma::test
