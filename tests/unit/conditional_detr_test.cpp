// Conditional DETR (model/families/conditional_detr.cpp over detr_body.cpp) on its Hub config. The counts are
// those of transformers' ConditionalDetr classes (modeling_conditional_detr.py) with timm's ResNets: the
// helper's verify/ rebuilt their module construction with torch.nn and compared every state_dict key, shape,
// order and parameter/buffer kind. Its decoder layers project queries and keys outside the attention, and
// only the first keeps ca_qpos_proj (the decoder sets it to None in the others).
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// microsoft/conditional-detr-resnet-50's config.json (reconstructed), its shape fields: COCO's 91 label ids,
// 300 queries.
const std::string kConditionalDetrResnet50 =
    R"({"model_type":"conditional_detr","architectures":["ConditionalDetrForObjectDetection"],
    "use_timm_backbone":true,"backbone":"resnet50","num_channels":3,"num_queries":300,"d_model":256,
    "encoder_layers":6,"decoder_layers":6,"encoder_attention_heads":8,"decoder_attention_heads":8,
    "encoder_ffn_dim":2048,"decoder_ffn_dim":2048,"position_embedding_type":"sine","dilation":false,)" +
    id2label_of(91) + "}";

// ConditionalDetrForObjectDetection(microsoft/conditional-detr-resnet-50): 43,418,401 parameters; with the
// 212 frozen-BN buffers (106,240 values) its checkpoint holds 588 tensors of 43,524,641 values (the Hub's
// 43.5M; the paper's 44M).
TEST(ConditionalDetr, Resnet50CountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kConditionalDetrResnet50), 43'418'401u);
  const ModelTemplate t = template_of(kConditionalDetrResnet50);
  const DiskTotals d = disk_totals(t);
  EXPECT_EQ(d.tensors, 588u);
  EXPECT_EQ(d.elements, 43'524'641u);
  EXPECT_EQ(find_tensor(t, "model.query_position_embeddings.weight")->shape, (Shape{300, 256}));
  // No "no object" class: the classifier has the 91 labels alone.
  EXPECT_EQ(find_tensor(t, "class_labels_classifier.weight")->shape, (Shape{91, 256}));
  const std::string layer0 = "model.decoder.layers.0.", layer1 = "model.decoder.layers.1.";
  ASSERT_NE(find_tensor(t, layer0 + "ca_qpos_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, layer1 + "ca_qpos_proj.weight"), nullptr);
  ASSERT_NE(find_tensor(t, layer1 + "ca_qpos_sine_proj.bias"), nullptr);
  // ConditionalDetrAttention holds out_proj alone (out_dim x out_dim, d_model for the cross-attention too).
  EXPECT_EQ(find_tensor(t, layer1 + "encoder_attn.out_proj.weight")->shape, (Shape{256, 256}));
  EXPECT_EQ(find_tensor(t, layer1 + "encoder_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.decoder.ref_point_head.layers.1.weight")->shape, (Shape{2, 256}));
  EXPECT_EQ(find_tensor(t, "model.decoder.query_scale.layers.1.weight")->shape, (Shape{256, 256}));
  // Registration order: the layer's self-attention projections before its attention, then the decoder's
  // LayerNorm before its two MLPs.
  EXPECT_LT(tensor_index(t, layer0 + "sa_v_proj.bias"),
            tensor_index(t, layer0 + "self_attn.out_proj.weight"));
  EXPECT_LT(tensor_index(t, layer0 + "ca_qcontent_proj.bias"),
            tensor_index(t, layer0 + "ca_qpos_proj.weight"));
  EXPECT_LT(tensor_index(t, "model.decoder.layernorm.bias"),
            tensor_index(t, "model.decoder.query_scale.layers.0.weight"));
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 6u);
  ASSERT_NE(t.arch.stack(StackRole::Vision), nullptr);
}

// ResNet-101 (microsoft/conditional-detr-resnet-101's backbone); ConditionalDetrModel drops the heads; the
// config class's defaults (ResNet-50, 300 queries, 6 + 6 layers) build the same body;
// ConditionalDetrForSegmentation wraps the detector as conditional_detr beside DETR's mask head.
TEST(ConditionalDetr, VariantsCountAsTransformersBuildThem) {
  EXPECT_EQ(parameters_of(replaced(kConditionalDetrResnet50, R"("resnet50")", R"("resnet101")")),
            62'358'305u);
  EXPECT_EQ(parameters_of(replaced(kConditionalDetrResnet50, "ConditionalDetrForObjectDetection",
                                   "ConditionalDetrModel")),
            43'262'402u);
  EXPECT_EQ(parameters_of(R"({"model_type":"conditional_detr"})"), 43'262'402u);
  const std::string segmentation =
      replaced(replaced(kConditionalDetrResnet50, "ConditionalDetrForObjectDetection",
                        "ConditionalDetrForSegmentation"),
               id2label_of(91), id2label_of(250));
  EXPECT_EQ(parameters_of(segmentation), 44'792'921u);
  const ModelTemplate t = template_of(segmentation);
  EXPECT_EQ(find_tensor(t, "conditional_detr.class_labels_classifier.weight")->shape, (Shape{250, 256}));
  EXPECT_EQ(find_tensor(t, "mask_head.lay1.weight")->shape, (Shape{264, 264, 3, 3}));
  ASSERT_NE(find_tensor(t, "bbox_attention.k_linear.bias"), nullptr);
  // use_timm_backbone false, three decoder layers, 100 queries: transformers' ResNetBackbone.
  const std::string small =
      replaced(replaced(replaced(replaced(kConditionalDetrResnet50, R"("backbone":"resnet50",)", ""),
                                 R"("use_timm_backbone":true)", R"("use_timm_backbone":false)"),
                        R"("decoder_layers":6)", R"("decoder_layers":3)"),
               R"("num_queries":300)", R"("num_queries":100)");
  EXPECT_EQ(parameters_of(small), 37'841'441u);
}

TEST(ConditionalDetr, RefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(replaced(kConditionalDetrResnet50, R"("decoder_attention_heads":8)",
                                R"("decoder_attention_heads":7)"))
                .field,
            "decoder_attention_heads");
  EXPECT_EQ(refusal_of(replaced(kConditionalDetrResnet50, R"("sine")", R"("rope")")).field,
            "position_embedding_type");
  // The mask head needs three feature maps; the default ResNetConfig hands on one.
  EXPECT_EQ(refusal_of(replaced(replaced(kConditionalDetrResnet50, "ConditionalDetrForObjectDetection",
                                         "ConditionalDetrForSegmentation"),
                                R"("use_timm_backbone":true)", R"("use_timm_backbone":false)"))
                .field,
            "backbone_config.out_features");
}

// The projections kept outside the attention are the attention's (sa_*) and the cross-attention's (ca_*);
// the decoder's query_scale and ref_point_head make the queries' positions (their layers.N no stack).
TEST(ConditionalDetr, PlacesEveryTensor) {
  const std::string segmentation = replaced(kConditionalDetrResnet50, "ConditionalDetrForObjectDetection",
                                            "ConditionalDetrForSegmentation");
  for (const std::string& config : {kConditionalDetrResnet50, segmentation})
    expect_every_tensor_placed(template_of(config));
  const TensorPlacement sa = place_tensor("model.decoder.layers.2.sa_kpos_proj.weight");
  EXPECT_EQ(sa.block, Block::Attention);
  EXPECT_EQ(sa.layer, 2u);
  EXPECT_EQ(place_tensor("model.decoder.layers.0.ca_qpos_sine_proj.bias").block, Block::CrossAttention);
  const TensorPlacement scale = place_tensor("model.decoder.query_scale.layers.1.weight");
  EXPECT_EQ(scale.block, Block::Embedding);
  EXPECT_FALSE(scale.layer.has_value());
  EXPECT_EQ(place_tensor("conditional_detr.bbox_predictor.layers.2.bias").block, Block::LmHead);
}

}  // namespace
}  // namespace ma::test
