// MaskFormer, MaskFormer's Swin and UperNet (model/families/maskformer.cpp, upernet.cpp, seg_backbones.cpp,
// swin.cpp, convnext.cpp) on their Hub configs. The expected counts are those of transformers' own classes
// (modeling_maskformer_swin.py, modular_maskformer.py, modeling_upernet.py, with modeling_swin.py's,
// modeling_convnext.py's and modeling_resnet.py's backbones): the helper's verify/ rebuilt their module
// construction in torch on the meta device and compared every state_dict key, shape, order and
// parameter/buffer kind with these templates. The papers' figures agree: MaskFormer Swin-T 42M and Swin-B
// 102M (Cheng et al. 2021, Table 1), UperNet Swin-T 60M (Liu et al. 2021, Table 3), UperNet ConvNeXt-T 60M
// (Liu et al. 2022, Table 4).
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// DetrConfig's sizes as MaskFormer's Hub configs spell them in decoder_config (facebook/detr-resnet-50's).
const std::string kMaskFormerDetrDecoder =
    R"("decoder_config":{"model_type":"detr","d_model":256,"decoder_layers":6,"decoder_attention_heads":8,
    "decoder_ffn_dim":2048,"encoder_layers":6,"encoder_attention_heads":8,"encoder_ffn_dim":2048,
    "num_queries":100,"activation_function":"relu"})";

// A swin backbone_config as the MaskFormer and UperNet conversion scripts write it.
std::string seg_heads_swin(int embed, const std::string& depths, const std::string& heads, int window,
                           int image) {
  return R"("backbone_config":{"model_type":"swin","embed_dim":)" + std::to_string(embed) + R"(,"depths":)" +
         depths + R"(,"num_heads":)" + heads + R"(,"window_size":)" + std::to_string(window) +
         R"(,"image_size":)" + std::to_string(image) +
         R"(,"patch_size":4,"mlp_ratio":4.0,"qkv_bias":true,"out_features":["stage1","stage2","stage3","stage4"]})";
}

// facebook/maskformer-swin-base-ade's config.json (reconstructed): Swin-B at 384 pixels, window 12, the
// ADE20k's 150 classes.
const std::string kMaskFormerSwinBaseAde =
    R"({"model_type":"maskformer","architectures":["MaskFormerForInstanceSegmentation"],)" +
    seg_heads_swin(128, "[2,2,18,2]", "[4,8,16,32]", 12, 384) + "," + kMaskFormerDetrDecoder +
    R"(,"fpn_feature_size":256,"mask_feature_size":256,)" + id2label_of(150) + "}";

// facebook/maskformer-swin-tiny-ade's (reconstructed): Swin-T at 224 pixels, window 7.
const std::string kMaskFormerSwinTinyAde =
    R"({"model_type":"maskformer","architectures":["MaskFormerForInstanceSegmentation"],)" +
    seg_heads_swin(96, "[2,2,6,2]", "[3,6,12,24]", 7, 224) + "," + kMaskFormerDetrDecoder +
    R"(,"fpn_feature_size":256,"mask_feature_size":256,)" + id2label_of(150) + "}";

// openmmlab/upernet-convnext-tiny's config.json (reconstructed): ConvNeXt-T handing on its four stages.
const std::string kUperNetConvNextTiny =
    R"({"model_type":"upernet","architectures":["UperNetForSemanticSegmentation"],
    "backbone_config":{"model_type":"convnext","hidden_sizes":[96,192,384,768],"depths":[3,3,9,3],
    "layer_scale_init_value":1e-6,"out_features":["stage1","stage2","stage3","stage4"]},
    "hidden_size":512,"pool_scales":[1,2,3,6],"use_auxiliary_head":true,"auxiliary_in_channels":384,
    "auxiliary_channels":256,"auxiliary_num_convs":1,"auxiliary_concat_input":false,)" +
    id2label_of(150) + "}";

// openmmlab/upernet-swin-tiny's (reconstructed): Swin-T, the same heads.
const std::string kUperNetSwinTiny =
    R"({"model_type":"upernet","architectures":["UperNetForSemanticSegmentation"],)" +
    seg_heads_swin(96, "[2,2,6,2]", "[3,6,12,24]", 7, 224) +
    R"(,"hidden_size":512,"pool_scales":[1,2,3,6],"use_auxiliary_head":true,"auxiliary_in_channels":384,
    "auxiliary_channels":256,"auxiliary_num_convs":1,"auxiliary_concat_input":false,)" +
    id2label_of(150) + "}";

// ---- MaskFormer ----

// MaskFormerForInstanceSegmentation(facebook/maskformer-swin-base-ade): 101,831,439 parameters (the paper's
// 102M). The Swin's relative-position indices and the loss's class weights are buffers.
TEST(MaskFormer, SwinBaseAdeCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kMaskFormerSwinBaseAde), 101'831'439u);
  const ModelTemplate t = template_of(kMaskFormerSwinBaseAde);
  EXPECT_EQ(total_of(t), 101'831'439u);
  EXPECT_EQ(t.arch.architecture, "MaskFormerForInstanceSegmentation");
  // The swin backbone_config becomes a MaskFormerSwinConfig: transformers 4's layer modules, the model
  // under encoder.model, one LayerNorm per stage after it.
  const std::string enc = "model.pixel_level_module.encoder.";
  const TemplateTensor* index =
      find_tensor(t, enc + "model.encoder.layers.0.blocks.0.attention.self.relative_position_index");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->kind, TensorKind::Buffer);
  EXPECT_EQ(index->shape, (Shape{144, 144}));
  ASSERT_NE(find_tensor(t, enc + "model.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, enc + "hidden_states_norms.3.weight")->shape, (Shape{1024}));
  EXPECT_LT(tensor_index(t, enc + "model.layernorm.bias"),
            tensor_index(t, enc + "hidden_states_norms.0.weight"));
  // The FPN reads the maps deepest first: its first lateral projection is stage3's 512 channels.
  EXPECT_EQ(find_tensor(t, "model.pixel_level_module.decoder.fpn.stem.0.weight")->shape,
            (Shape{256, 1024, 3, 3}));
  EXPECT_EQ(find_tensor(t, "model.pixel_level_module.decoder.fpn.layers.0.proj.0.weight")->shape,
            (Shape{256, 512, 1, 1}));
  // Swin-B's last map (1024 channels) is not d_model wide: the transformer module projects it.
  EXPECT_EQ(find_tensor(t, "model.transformer_module.input_projection.weight")->shape,
            (Shape{256, 1024, 1, 1}));
  EXPECT_EQ(find_tensor(t, "class_predictor.weight")->shape, (Shape{151, 256}));  // + "no object"
  EXPECT_EQ(find_tensor(t, "mask_embedder.2.0.weight")->shape, (Shape{256, 256}));
  const TemplateTensor* weights = find_tensor(t, "criterion.empty_weight");
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->kind, TensorKind::Buffer);
  EXPECT_EQ(weights->shape, (Shape{151}));
  EXPECT_EQ(t.tensors.back().name, "criterion.empty_weight");
}

// facebook/maskformer-swin-tiny-ade: 41,758,545 parameters (the paper's 42M).
TEST(MaskFormer, SwinTinyAdeCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kMaskFormerSwinTinyAde), 41'758'545u);
}

// MaskFormerModel over transformers' ResNet-50 (ResNetBackbone: trainable batch norms) handing on its four
// stages: 41,071,680 parameters, the 2048-channel last map projected to d_model.
TEST(MaskFormer, ResNetBackboneCountsAsTransformersBuildsIt) {
  const std::string config =
      R"({"model_type":"maskformer","architectures":["MaskFormerModel"],"backbone_config":
      {"model_type":"resnet","out_features":["stage1","stage2","stage3","stage4"]}})";
  EXPECT_EQ(parameters_of(config), 41'071'680u);
  const ModelTemplate t = template_of(config);
  EXPECT_NE(find_tensor(t, "pixel_level_module.encoder.embedder.embedder.convolution.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "transformer_module.input_projection.weight")->shape, (Shape{256, 2048, 1, 1}));
  EXPECT_EQ(find_tensor(t, "class_predictor.weight"), nullptr);
}

TEST(MaskFormer, RefusesWhatTransformersCannotBuild) {
  // MaskFormerConfig pops the decoder's model_type and accepts only detr.
  EXPECT_EQ(
      refusal_of(replaced(kMaskFormerSwinTinyAde, R"("model_type":"detr")", R"("model_type":"rt_detr")"))
          .field,
      "decoder_config.model_type");
  EXPECT_EQ(
      refusal_of(replaced(kMaskFormerSwinTinyAde, R"("model_type":"swin")", R"("model_type":"beit")")).kind,
      ErrorKind::Unsupported);
  // torch's GroupNorm(32, ...) in the FPN.
  EXPECT_EQ(
      refusal_of(replaced(kMaskFormerSwinTinyAde, R"("fpn_feature_size":256)", R"("fpn_feature_size":100)"))
          .field,
      "fpn_feature_size");
  // MaskFormer hands on stage1..stage4 whatever the config says: a three-stage Swin has no stage4.
  EXPECT_EQ(refusal_of(
                replaced(replaced(kMaskFormerSwinTinyAde, "[2,2,6,2]", "[2,2,6]"), "[3,6,12,24]", "[3,6,12]"))
                .field,
            "backbone_config.depths");
}

// ---- MaskFormer's Swin alone ----

// MaskFormerSwinModel with MaskFormerSwinConfig's defaults (Swin-T): 27,519,354 parameters, Swin-T's
// 27.52M body with its final LayerNorm; the backbone adds a LayerNorm per stage (2,880 more).
TEST(MaskFormerSwin, ModelAndBackboneCountAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(R"({"model_type":"maskformer-swin","architectures":["MaskFormerSwinModel"]})"),
            27'519'354u);
  const std::string backbone =
      R"({"model_type":"maskformer-swin","architectures":["MaskFormerSwinBackbone"],
      "out_features":["stage2","stage4"]})";
  EXPECT_EQ(parameters_of(backbone), 27'522'234u);
  // A norm for every stage, whatever out_features hands on.
  EXPECT_NE(find_tensor(template_of(backbone), "hidden_states_norms.0.weight"), nullptr);
  EXPECT_EQ(refusal_of(replaced(backbone, R"("stage2")", R"("stem")")).field, "out_features");
}

// ---- UperNet ----

// UperNetForSemanticSegmentation(openmmlab/upernet-convnext-tiny): 60,242,636 parameters (the ConvNeXt
// paper's 60M).
TEST(UperNet, ConvNextTinyCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kUperNetConvNextTiny), 60'242'636u);
  const ModelTemplate t = template_of(kUperNetConvNextTiny);
  EXPECT_EQ(t.arch.architecture, "UperNetForSemanticSegmentation");
  // ConvNextBackbone: no final LayerNorm, a channels-first LayerNorm per stage handed on, by stage name.
  EXPECT_EQ(find_tensor(t, "backbone.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "backbone.hidden_states_norms.stage4.weight")->shape, (Shape{768}));
  // UperNetHead registers its classifier before the PSP module.
  EXPECT_LT(tensor_index(t, "decode_head.classifier.weight"),
            tensor_index(t, "decode_head.psp_modules.0.1.conv.weight"));
  EXPECT_EQ(find_tensor(t, "decode_head.bottleneck.conv.weight")->shape, (Shape{512, 768 + 4 * 512, 3, 3}));
  EXPECT_EQ(find_tensor(t, "decode_head.fpn_bottleneck.conv.weight")->shape, (Shape{512, 4 * 512, 3, 3}));
  EXPECT_EQ(find_tensor(t, "decode_head.psp_modules.3.1.batch_norm.running_mean")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "auxiliary_head.convs.0.conv.weight")->shape, (Shape{256, 384, 3, 3}));
  EXPECT_EQ(find_tensor(t, "auxiliary_head.classifier.weight")->shape, (Shape{150, 256, 1, 1}));
  // Without the auxiliary head: its conv module (884,736 + 512) and classifier (38,550) go.
  EXPECT_EQ(parameters_of(replaced(kUperNetConvNextTiny, R"("use_auxiliary_head":true)",
                                   R"("use_auxiliary_head":false)")),
            60'242'636u - 884'736u - 512u - 38'550u);
}

// openmmlab/upernet-swin-tiny: 59,941,862 parameters (the Swin paper's 60M). SwinBackbone is transformers
// 5's Swin without its final LayerNorm; checkpoints keep transformers 4's names.
TEST(UperNet, SwinTinyCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kUperNetSwinTiny), 59'941'862u);
  const ModelTemplate t = template_of(kUperNetSwinTiny);
  EXPECT_EQ(find_tensor(t, "backbone.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "backbone.hidden_states_norms.stage1.weight")->shape, (Shape{96}));
  const TemplateTensor* q = find_tensor(t, "backbone.encoder.layers.0.blocks.0.attention.q_proj.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(stored_name(*q), "backbone.encoder.layers.0.blocks.0.attention.self.query.weight");
  expect_reads_cleanly(kUperNetSwinTiny);
}

TEST(UperNet, RefusesWhatTransformersCannotBuild) {
  // transformers 5's UperNetConfig defaults auxiliary_in_channels to None, which the FCN head cannot build.
  EXPECT_EQ(refusal_of(replaced(kUperNetConvNextTiny, R"("auxiliary_in_channels":384,)", "")).field,
            "auxiliary_in_channels");
  // A backbone named only by checkpoint: its shape is not in config.json.
  EXPECT_EQ(
      refusal_of(
          R"({"model_type":"upernet","auxiliary_in_channels":384,"backbone":"facebook/convnext-tiny-224"})")
          .field,
      "backbone_config");
  EXPECT_EQ(refusal_of(replaced(kUperNetConvNextTiny, R"("stage4"])", R"("stage5"])")).field,
            "backbone_config.out_features");
}

TEST(SegHeads, PlacesEveryTensor) {
  for (const std::string& config : {kMaskFormerSwinBaseAde, kUperNetConvNextTiny, kUperNetSwinTiny}) {
    const ModelTemplate t = template_of(config);
    expect_every_tensor_placed(t);
  }
  // MaskFormer's backbone and pixel decoder are its image branch; its class and mask heads are heads.
  EXPECT_EQ(place_tensor("model.pixel_level_module.decoder.fpn.layers.0.proj.0.weight").block, Block::Vision);
  EXPECT_EQ(place_tensor("mask_embedder.1.0.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("criterion.empty_weight").block, Block::Buffer);
  EXPECT_EQ(place_tensor("decode_head.lateral_convs.0.conv.weight").block, Block::LmHead);
}

}  // namespace
}  // namespace ma::test
