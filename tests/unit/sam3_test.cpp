// SAM 3 (model/families/sam3_model.cpp, sam3_vision.cpp, sam3_detector.cpp). The counts are those of
// transformers' Sam3Model, Sam3VisionModel and Sam3ViTModel (modeling_sam3.py at 295d1365,
// configuration_sam3.py at ad310e0f) as a module-by-module port of their __init__s on torch's meta device
// gives them (every state_dict key, shape and order compared with the template). Published: the SAM 3 text
// encoder has 353M parameters (transformers' SAM3-LiteText docs), and the whole of SAM 3, this detector plus
// its video tracker, 848M (facebookresearch/sam3).
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/sam3's detector at Sam3Config's defaults.
constexpr const char* kSam3Default = R"({"model_type":"sam3","architectures":["Sam3Model"]})";

// Every sub-config changed from its default: a small ViT with three FPN levels, a CLIP text config that only
// overrides depth and vocabulary (its width is CLIPTextConfig's 512, not SAM 3's 1,024), and narrower heads.
constexpr const char* kSam3Small = R"({"model_type":"sam3",
  "vision_config":{"fpn_hidden_size":128,"scale_factors":[2.0,1.0,0.5],
    "backbone_config":{"hidden_size":256,"intermediate_size":512,"num_hidden_layers":4,"num_attention_heads":4,
    "global_attn_indexes":[3],"pretrain_image_size":224,"patch_size":16,"image_size":512,"window_size":8}},
  "text_config":{"num_hidden_layers":2,"vocab_size":1000},
  "geometry_encoder_config":{"hidden_size":128,"num_layers":2,"intermediate_size":256,"roi_size":5},
  "detr_encoder_config":{"hidden_size":128,"num_layers":1,"intermediate_size":256},
  "detr_decoder_config":{"hidden_size":128,"num_layers":2,"num_queries":50,"num_attention_heads":4,
    "intermediate_size":384},
  "mask_decoder_config":{"hidden_size":128,"num_upsampling_stages":2}})";

TEST(Sam3, DetectorCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kSam3Default), 840'376'374u);
  EXPECT_EQ(parameters_of(kSam3Small), 12'519'510u);
  const ModelTemplate t = template_of(kSam3Default);
  EXPECT_EQ(t.arch.architecture, "Sam3Model");
  EXPECT_EQ(total_of(t), 840'376'374u);
  // The text encoder with its projection: 353,462,272, the 353M the SAM3-LiteText docs give.
  EXPECT_EQ(parameters_under(t, "text_encoder."), 353'462'272u);
}

TEST(Sam3, ModulesComeInTransformersOrder) {
  const ModelTemplate t = template_of(kSam3Default);
  // Sam3ViTEmbeddings' own position table (the 336-pixel pretraining grid of 14-pixel patches, no class
  // token) precedes its bias-free patch convolution.
  const TemplateTensor* position = find_tensor(t, "vision_encoder.backbone.embeddings.position_embeddings");
  ASSERT_NE(position, nullptr);
  EXPECT_EQ(position->shape, (Shape{1, 576, 1024}));
  EXPECT_EQ(tensor_index(t, "vision_encoder.backbone.embeddings.position_embeddings"), 0u);
  EXPECT_EQ(find_tensor(t, "vision_encoder.backbone.embeddings.patch_embeddings.projection.bias"), nullptr);
  // The 4x FPN level: two transposed convolutions around a GELU (index 1), 1,024 -> 512 -> 256 channels.
  const TemplateTensor* up = find_tensor(t, "vision_encoder.neck.fpn_layers.0.scale_layers.2.weight");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->shape, (Shape{512, 256, 2, 2}));
  EXPECT_EQ(find_tensor(t, "vision_encoder.neck.fpn_layers.3.scale_layers.0.weight"), nullptr);  // max-pool
  EXPECT_LT(tensor_index(t, "vision_encoder.neck.fpn_layers.3.proj2.bias"),
            tensor_index(t, "text_encoder.text_model.embeddings.token_embedding.weight"));
  EXPECT_LT(tensor_index(t, "text_encoder.text_projection.weight"),
            tensor_index(t, "text_projection.weight"));
  EXPECT_LT(tensor_index(t, "text_projection.bias"), tensor_index(t, "geometry_encoder.label_embed.weight"));
  EXPECT_LT(tensor_index(t, "mask_decoder.prompt_cross_attn_norm.bias"),
            tensor_index(t, "dot_product_scoring.text_mlp.layer1.weight"));
  // A two-layer Sam3DecoderMLP has no layer3; the box RPB MLPs end in one output per head.
  EXPECT_EQ(find_tensor(t, "detr_decoder.ref_point_head.layer3.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "detr_decoder.box_rpb_embed_x.layer2.weight")->shape, (Shape{8, 256}));
  EXPECT_EQ(find_tensor(t, "geometry_encoder.boxes_pool_project.weight")->shape, (Shape{256, 256, 7, 7}));
  expect_every_tensor_placed(t);
}

TEST(Sam3, CheckpointsStoreItAsTheVideoModelsDetector) {
  const ModelTemplate t = template_of(kSam3Default);
  EXPECT_EQ(stored_name(*find_tensor(t, "detr_decoder.query_embed.weight")),
            "detector_model.detr_decoder.query_embed.weight");
  EXPECT_EQ(disk_totals(t).elements, 840'376'374u);
  // facebook/sam3's tracker weights are known extras that Sam3Model skips on load.
  const StoredCheckpoint c = stored_checkpoint(
      kSam3Small, {{"tracker_model.no_memory_embedding", DType::BF16, {1, 1, 256}, {}},
                   {"tracker_neck.fpn_layers.0.proj1.weight", DType::BF16, {256, 1024, 1, 1}, {}}});
  EXPECT_EQ(extras_in(c.inventory), 2u);
  EXPECT_TRUE(c.inventory.warnings.empty());
}

TEST(Sam3, ImageEncoderAloneIsTheOneInside) {
  EXPECT_EQ(parameters_of(R"({"model_type":"sam3_vision_model"})"), 454'038'784u);
  EXPECT_EQ(parameters_of(R"({"model_type":"sam3_vit_model"})"), 446'236'672u);
  const ModelTemplate t = template_of(R"({"model_type":"sam3_vision_model"})");
  EXPECT_NE(find_tensor(t, "backbone.layers.31.mlp.fc2.bias"), nullptr);
  EXPECT_EQ(t.arch.hidden_size, 1024u);
  EXPECT_EQ(t.arch.num_layers, 32u);
}

TEST(Sam3, RefusesWhatTransformersCannotBuild) {
  // Sam3ViTRotaryEmbedding raises unless each head's width is a multiple of 4 (1,000 / 16 = 62).
  const Refusal heads =
      refusal_of(R"({"model_type":"sam3","vision_config":{"backbone_config":{"hidden_size":1000}}})");
  EXPECT_EQ(heads.field, "vision_config.backbone_config.num_attention_heads");
  // Sam3FPNLayer raises NotImplementedError for a scale factor other than 4, 2, 1 and 0.5.
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3","vision_config":{"scale_factors":[4.0,3.0]}})").field,
            "vision_config.scale_factors");
  // The pixel decoder's GroupNorm(8, hidden_size) needs a multiple of 8.
  EXPECT_EQ(refusal_of(R"({"model_type":"sam3","mask_decoder_config":{"hidden_size":100}})").field,
            "mask_decoder_config.hidden_size");
  // Only the SAM 3 ViT is a Sam3VisionModel backbone here.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"sam3","vision_config":{"backbone_config":{"model_type":"vit"}}})").kind,
      ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
