// Mask2Former, OneFormer and EoMT (model/families/mask2former.cpp, oneformer.cpp, eomt.cpp) on their Hub
// configs' shape fields. Expected totals are those of transformers' classes (modeling_mask2former.py,
// modeling_oneformer.py, modular_eomt.py): the helper's verify/reconstruct.py rebuilds every module these
// models add to their backbone with torch and matches each tensor's name, shape and state_dict order; the
// Swin backbones' share checks against Swin-T's and Swin-S's published 28,288,354 and 49,606,258 (their
// ImageNet heads and final norm off, four stage norms on). EoMT-L's 316.7M is the paper's 316M.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/mask2former-swin-tiny-coco-instance's config.json, its shape fields.
constexpr const char* kSegBMask2FormerTiny =
    R"({"model_type":"mask2former","architectures":["Mask2FormerForUniversalSegmentation"],
    "backbone_config":{"model_type":"swin","depths":[2,2,6,2],"embed_dim":96,"num_heads":[3,6,12,24],
    "window_size":7,"image_size":224,"use_absolute_embeddings":false,
    "out_features":["stage1","stage2","stage3","stage4"]},
    "num_labels":80,"num_queries":100,"decoder_layers":10,"encoder_layers":6,"feature_size":256,
    "mask_feature_size":256,"hidden_dim":256,"dim_feedforward":2048,"encoder_feedforward_dim":1024,
    "num_attention_heads":8,"common_stride":4,"feature_strides":[4,8,16,32]})";

// facebook/mask2former-swin-base-coco-panoptic's and -swin-large-coco-panoptic's (200 queries).
constexpr const char* kSegBMask2FormerBase =
    R"({"model_type":"mask2former","architectures":["Mask2FormerForUniversalSegmentation"],
    "backbone_config":{"model_type":"swin","depths":[2,2,18,2],"embed_dim":128,"num_heads":[4,8,16,32],
    "window_size":12,"image_size":384,"out_features":["stage1","stage2","stage3","stage4"]},
    "num_labels":133,"num_queries":100})";
constexpr const char* kSegBMask2FormerLarge =
    R"({"model_type":"mask2former","architectures":["Mask2FormerForUniversalSegmentation"],
    "backbone_config":{"model_type":"swin","depths":[2,2,18,2],"embed_dim":192,"num_heads":[6,12,24,48],
    "window_size":12,"image_size":384,"out_features":["stage1","stage2","stage3","stage4"]},
    "num_labels":133,"num_queries":200})";

// shi-labs/oneformer_ade20k_swin_tiny's config.json, its shape fields.
constexpr const char* kSegBOneFormerTiny =
    R"({"model_type":"oneformer","architectures":["OneFormerForUniversalSegmentation"],
    "backbone_config":{"model_type":"swin","depths":[2,2,6,2],"embed_dim":96,"num_heads":[3,6,12,24],
    "window_size":7,"image_size":224,"out_features":["stage1","stage2","stage3","stage4"]},
    "num_labels":150,"num_queries":150,"is_training":false,"decoder_layers":10,"query_dec_layers":2,
    "task_seq_len":77,"conv_dim":256,"mask_dim":256,"hidden_dim":256,"contrastive_temperature":0.07})";

// tue-mps/coco_panoptic_eomt_large_640's config.json, its shape fields (EomtConfig's defaults).
constexpr const char* kSegBEomtLarge =
    R"({"model_type":"eomt","architectures":["EomtForUniversalSegmentation"],"hidden_size":1024,
    "num_hidden_layers":24,"num_attention_heads":16,"mlp_ratio":4,"image_size":640,"patch_size":16,
    "num_register_tokens":4,"num_queries":200,"num_blocks":4,"num_upscale_blocks":2,"use_swiglu_ffn":false,
    "num_labels":133})";

// ---- Mask2Former ----

// Mask2FormerForUniversalSegmentation: a 27,520,698-parameter Swin-T backbone and 19,900,945 of pixel
// decoder, transformer decoder and class head: 47.4M, as the Hub shows. Mask2FormerModel drops the
// class_predictor (81 x 256 + 81).
TEST(SegB, Mask2FormerSwinCountsAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(kSegBMask2FormerTiny), 47'421'643u);
  EXPECT_EQ(parameters_of(
                replaced(kSegBMask2FormerTiny, "Mask2FormerForUniversalSegmentation", "Mask2FormerModel")),
            47'400'826u);
  EXPECT_EQ(parameters_of(kSegBMask2FormerBase), 106'917'822u);
  EXPECT_EQ(parameters_of(kSegBMask2FormerLarge), 215'535'610u);
  // Mask2FormerConfig's default backbone is a Swin-S (depths 2, 2, 18, 2 at width 96).
  EXPECT_EQ(parameters_of(R"({"model_type":"mask2former","architectures":["Mask2FormerModel"]})"),
            68'718'730u);
}

TEST(SegB, Mask2FormerRegistersItsModulesAsTransformersDoes) {
  const ModelTemplate t = template_of(kSegBMask2FormerTiny);
  const std::string pd = "model.pixel_level_module.decoder.";
  // The pixel decoder's own level_embed first, then one projection per map, deepest (768 channels) first.
  EXPECT_LT(tensor_index(t, pd + "level_embed"), tensor_index(t, pd + "input_projections.0.0.weight"));
  EXPECT_EQ(find_tensor(t, pd + "input_projections.0.0.weight")->shape, (Shape{256, 768, 1, 1}));
  EXPECT_EQ(find_tensor(t, pd + "input_projections.2.0.weight")->shape, (Shape{256, 192, 1, 1}));
  // Deformable attention over 3 levels and 4 points with 8 heads; one FPN level (stride 8 over 4).
  EXPECT_EQ(find_tensor(t, pd + "encoder.layers.5.self_attn.sampling_offsets.weight")->shape,
            (Shape{192, 256}));
  EXPECT_EQ(find_tensor(t, pd + "adapter_1.0.weight")->shape, (Shape{256, 96, 1, 1}));
  EXPECT_EQ(find_tensor(t, pd + "adapter_1.0.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, pd + "adapter_2.0.weight"), nullptr);
  // decoder_layers - 1 decoder layers, the cross-attention torch's nn.MultiheadAttention.
  const std::string dec = "model.transformer_module.decoder.";
  EXPECT_EQ(find_tensor(t, dec + "layers.8.cross_attn.in_proj_weight")->shape, (Shape{768, 256}));
  EXPECT_EQ(find_tensor(t, dec + "layers.9.fc1.weight"), nullptr);
  // The transformer module's input projections are a plain list: never registered.
  EXPECT_EQ(find_tensor(t, "model.transformer_module.input_projections.0.weight"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Decoder)->layers.size(), 9u);
  EXPECT_EQ(find_tensor(t, "criterion.empty_weight")->kind, TensorKind::Buffer);
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(dec + "mask_predictor.mask_embedder.2.0.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("model.transformer_module.queries_features.weight").block, Block::Embedding);
}

TEST(SegB, Mask2FormerRefusesWhatTransformersCannotBuild) {
  // GroupNorm(32, feature_size) and the deformable attention's head split.
  EXPECT_EQ(refusal_of(R"({"model_type":"mask2former","feature_size":200})").field, "feature_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"mask2former","num_attention_heads":7})").field,
            "num_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"mask2former","common_stride":16})").field, "common_stride");
  EXPECT_EQ(refusal_of(R"({"model_type":"mask2former","backbone_config":{"model_type":"beit"}})").field,
            "backbone_config.model_type");
}

// ---- OneFormer ----

// OneFormerForUniversalSegmentation: the same Swin-T and 23,215,704 more (150 queries, a two-layer query
// transformer, the task MLP, the contrastive loss's logit_scale). OneFormerModel holds all but logit_scale.
TEST(SegB, OneFormerCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kSegBOneFormerTiny), 50'736'402u);
  EXPECT_EQ(
      parameters_of(replaced(kSegBOneFormerTiny, "OneFormerForUniversalSegmentation", "OneFormerModel")),
      50'736'401u);
  EXPECT_EQ(parameters_of(replaced(kSegBOneFormerTiny, R"("contrastive_temperature":0.07)",
                                   R"("contrastive_temperature":null)")),
            50'736'401u);
  // is_training adds the text mapper: a 6-layer, 256-wide text encoder over 49,408 tokens and its projector.
  EXPECT_EQ(
      parameters_of(R"({"model_type":"oneformer","architectures":["OneFormerModel"],"is_training":true})"),
      68'241'277u);
}

TEST(SegB, OneFormerRegistersItsModulesAsTransformersDoes) {
  const ModelTemplate t = template_of(kSegBOneFormerTiny);
  const std::string dec = "model.transformer_module.decoder.";
  EXPECT_EQ(find_tensor(t, dec + "query_transformer.decoder.layers.1.multihead_attn.in_proj_weight")->shape,
            (Shape{768, 256}));
  EXPECT_EQ(find_tensor(t, dec + "layers.8.cross_attn.multihead_attn.in_proj_bias")->shape, (Shape{768}));
  EXPECT_EQ(find_tensor(t, dec + "class_embed.weight")->shape, (Shape{151, 256}));
  EXPECT_EQ(find_tensor(t, dec + "mask_embed.layers.2.0.weight")->shape, (Shape{256, 256}));
  EXPECT_EQ(find_tensor(t, "model.task_encoder.task_mlp.layers.0.0.weight")->shape, (Shape{256, 77}));
  EXPECT_EQ(find_tensor(t, "model.text_mapper.prompt_ctx.weight"), nullptr);
  // The pixel decoder is Mask2Former's under OneFormer's field names.
  EXPECT_EQ(find_tensor(t, "model.pixel_level_module.decoder.mask_projection.weight")->shape,
            (Shape{256, 256, 1, 1}));
  // state_dict lists the loss's parameter before its buffer.
  EXPECT_EQ(find_tensor(t, "criterion.logit_scale")->shape, Shape{});
  EXPECT_LT(tensor_index(t, "criterion.logit_scale"), tensor_index(t, "criterion.empty_weight"));
  expect_every_tensor_placed(t);
  expect_every_tensor_placed(
      template_of(R"({"model_type":"oneformer","architectures":["OneFormerModel"],"is_training":true})"));
}

TEST(SegB, OneFormerRefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(refusal_of(R"({"model_type":"oneformer","conv_dim":100})").field, "conv_dim");
  // The text encoder has width / 64 heads: none below 64.
  EXPECT_EQ(refusal_of(R"({"model_type":"oneformer","is_training":true,"text_encoder_width":32})").field,
            "text_encoder_width");
}

// ---- EoMT ----

// EomtForUniversalSegmentation at its defaults (coco_panoptic_eomt_large_640): 316,695,686 parameters, the
// paper's 316M for EoMT with ViT-L.
TEST(SegB, EomtCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kSegBEomtLarge), 316'695'686u);
  EXPECT_EQ(parameters_of(R"({"model_type":"eomt","hidden_size":384,"num_hidden_layers":12,
      "num_attention_heads":6,"use_swiglu_ffn":true,"num_labels":150,"image_size":512})"),
            23'767'447u);
}

TEST(SegB, EomtRegistersItsModulesAsTransformersDoes) {
  const ModelTemplate t = template_of(kSegBEomtLarge);
  // The model's own persistent buffer comes first in state_dict.
  EXPECT_EQ(t.tensors.front().name, "attn_mask_probs");
  EXPECT_EQ(t.tensors.front().kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "embeddings.register_tokens")->shape, (Shape{1, 4, 1024}));
  EXPECT_EQ(find_tensor(t, "embeddings.position_embeddings.weight")->shape, (Shape{1600, 1024}));
  EXPECT_EQ(find_tensor(t, "embeddings.position_ids"), nullptr);  // not persistent
  EXPECT_LT(tensor_index(t, "layers.0.attention.k_proj.weight"),
            tensor_index(t, "layers.0.attention.q_proj.weight"));
  EXPECT_EQ(find_tensor(t, "layers.23.layer_scale2.lambda1")->shape, (Shape{1024}));
  EXPECT_EQ(find_tensor(t, "upscale_block.block.1.conv1.weight")->shape, (Shape{1024, 1024, 2, 2}));
  EXPECT_EQ(find_tensor(t, "upscale_block.block.1.conv2.weight")->shape, (Shape{1024, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, "upscale_block.block.1.conv2.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "class_predictor.weight")->shape, (Shape{134, 1024}));
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 24u);
  expect_every_tensor_placed(t);
}

TEST(SegB, EomtRefusesWhatTransformersCannotBuild) {
  // transformers has no EomtModel: only the universal segmentation class.
  EXPECT_EQ(refusal_of(R"({"model_type":"eomt","architectures":["EomtModel"]})").field, "architectures");
  EXPECT_EQ(refusal_of(R"({"model_type":"eomt","hidden_size":1000})").field, "num_attention_heads");
}

}  // namespace
}  // namespace ma::test
