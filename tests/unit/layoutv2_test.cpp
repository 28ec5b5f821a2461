// LayoutLMv2 and LayoutXLM (model/families/layoutlmv2.cpp, detectron2_backbone.cpp). Expected counts are an
// independent count of transformers' LayoutLMv2 classes (modeling_layoutlmv2.py) over the modules
// detectron2's build_resnet_fpn_backbone registers; the base model's 200.08M is the 200M the LayoutLMv2
// paper (Xu et al., 2021, table of model sizes) gives for LayoutLMv2-BASE.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// microsoft/layoutlmv2-base-uncased's shape fields: LayoutLMv2Config's defaults, which its config.json
// keeps (BERT-base's text encoder; the ResNeXt-101 32x8d FPN of get_default_detectron2_config()).
constexpr const char* kLayoutv2Base =
    R"({"model_type":"layoutlmv2","architectures":["LayoutLMv2Model"],"vocab_size":30522,"hidden_size":768,
    "num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":512,
    "type_vocab_size":2,"max_2d_position_embeddings":1024,"coordinate_size":128,"shape_size":128,
    "fast_qkv":true,"rel_pos_bins":32,"rel_2d_pos_bins":64,"image_feature_pool_shape":[7,7,256],
    "has_relative_attention_bias":true,"has_spatial_attention_bias":true,"has_visual_segment_embedding":false})";

// A detectron2_config_args of an FPN over a ResNet-50: the keys it omits take detectron2's get_cfg()
// defaults (one group of 64 channels per bottleneck), not LayoutLMv2's.
constexpr const char* kLayoutv2R50Args =
    R"("detectron2_config_args":{"MODEL.BACKBONE.NAME":"build_resnet_fpn_backbone",
    "MODEL.FPN.IN_FEATURES":["res2","res3","res4","res5"],
    "MODEL.RESNETS.OUT_FEATURES":["res2","res3","res4","res5"]},)";

std::string layoutv2_with(const std::string& architecture, const std::string& extra = "") {
  return replaced(replaced(kLayoutv2Base, "LayoutLMv2Model", architecture), R"("vocab_size")",
                  extra + R"("vocab_size")");
}

// LayoutLMv2Model: 200,081,984 parameters. The backbone's FrozenBatchNorm2d layers hold weight, bias and
// running statistics as buffers (405,760 values), not parameters.
TEST(Layoutv2, BaseCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kLayoutv2Base), 200'081'984u);
  const ModelTemplate t = template_of(kLayoutv2Base);
  EXPECT_EQ(total_of(t), 200'081'984u);
  uint64_t buffers = 0;
  for (const TemplateTensor& x : t.tensors)
    if (x.kind == TensorKind::Buffer) buffers += numel(x.shape);
  EXPECT_EQ(buffers, 405'760u);
  const TemplateTensor* norm = find_tensor(t, "visual.backbone.bottom_up.stem.conv1.norm.weight");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->kind, TensorKind::Buffer);
  // ResNeXt 32x8d: res2's grouped 3 x 3 convolution is 256 wide in 32 groups; res5's output 2,048 wide.
  EXPECT_EQ(find_tensor(t, "visual.backbone.bottom_up.res2.0.conv2.weight")->shape, (Shape{256, 8, 3, 3}));
  EXPECT_EQ(find_tensor(t, "visual.backbone.fpn_lateral5.weight")->shape, (Shape{256, 2048, 1, 1}));
  EXPECT_NE(find_tensor(t, "visual.backbone.bottom_up.res4.22.conv3.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "visual_proj.weight")->shape, (Shape{768, 256}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.0.attention.self.qkv_linear.weight")->shape, (Shape{2304, 768}));
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 12u);
  expect_every_tensor_placed(t);
}

// state_dict's order: the FPN registers its convolutions before it takes the ResNet as bottom_up; a
// bottleneck block its shortcut before conv1; the fused self-attention its own q_bias and v_bias before
// its qkv_linear child.
TEST(Layoutv2, TensorsComeInRegistrationOrder) {
  const ModelTemplate t = template_of(kLayoutv2Base);
  EXPECT_EQ(t.tensors.front().name, "embeddings.word_embeddings.weight");
  EXPECT_LT(tensor_index(t, "embeddings.w_position_embeddings.weight"),
            tensor_index(t, "embeddings.token_type_embeddings.weight"));
  EXPECT_LT(tensor_index(t, "visual.backbone.fpn_output5.bias"),
            tensor_index(t, "visual.backbone.bottom_up.stem.conv1.weight"));
  EXPECT_LT(tensor_index(t, "visual.backbone.bottom_up.res3.0.shortcut.weight"),
            tensor_index(t, "visual.backbone.bottom_up.res3.0.conv1.weight"));
  EXPECT_LT(tensor_index(t, "encoder.layer.0.attention.self.v_bias"),
            tensor_index(t, "encoder.layer.0.attention.self.qkv_linear.weight"));
  EXPECT_EQ(t.tensors.back().name, "pooler.dense.bias");
}

// The heads: the sequence classifier reads three hidden states concatenated (16 RVL-CDIP classes); the
// question-answering class forces the visual segment embedding on, whatever the config says, and registers
// it first; the token classifier reads the text tokens.
TEST(Layoutv2, HeadsAsTransformersBuildsThem) {
  EXPECT_EQ(parameters_of(layoutv2_with("LayoutLMv2ForSequenceClassification", id2label_of(16) + ",")),
            200'118'864u);
  const std::string qa = layoutv2_with("LayoutLMv2ForQuestionAnswering");
  EXPECT_EQ(parameters_of(qa), 200'084'290u);
  EXPECT_EQ(template_of(qa).tensors.front().name, "layoutlmv2.visual_segment_embedding");
  // XLM-RoBERTa's vocabulary (LayoutXLM's) and separate query, key and value projections.
  const std::string tokens =
      replaced(replaced(layoutv2_with("LayoutLMv2ForTokenClassification", id2label_of(7) + ","),
                        R"("vocab_size":30522)", R"("vocab_size":250002)"),
               R"("fast_qkv":true)", R"("fast_qkv":false)");
  EXPECT_EQ(parameters_of(tokens), 368'657'223u);
  EXPECT_NE(find_tensor(template_of(tokens), "layoutlmv2.encoder.layer.11.attention.self.key.bias"), nullptr);
}

// LayoutXLMConfig (model_type layoutxlm) is LayoutLMv2Config under another name: the same classes build it.
TEST(Layoutv2, LayoutXlmBuildsTheSameClasses) {
  EXPECT_EQ(
      parameters_of(replaced(kLayoutv2Base, R"("model_type":"layoutlmv2")", R"("model_type":"layoutxlm")")),
      200'081'984u);
}

// A detectron2_config_args replaces LayoutLMv2's whole default dict: a ResNet-50 FPN (136,997,440), not a
// ResNeXt-101.
TEST(Layoutv2, GivenDetectronArgsFallBackToDetectronDefaults) {
  const std::string r50 = layoutv2_with("LayoutLMv2Model", kLayoutv2R50Args);
  EXPECT_EQ(parameters_of(r50), 136'997'440u);
  EXPECT_EQ(find_tensor(template_of(r50), "visual.backbone.bottom_up.res2.0.conv2.weight")->shape,
            (Shape{64, 64, 3, 3}));
}

// Checkpoints saved while the pixel statistics were persistent buffers store them: extras, no warning.
TEST(Layoutv2, StoredPixelStatisticsAreKnownExtras) {
  const StoredCheckpoint c = stored_checkpoint(
      kLayoutv2Base,
      {{"visual.pixel_mean", DType::F32, {3, 1, 1}, {}}, {"visual.pixel_std", DType::F32, {3, 1, 1}, {}}});
  EXPECT_TRUE(c.inventory.warnings.empty());
  EXPECT_EQ(extras_in(c.inventory), 2u);
}

// What the analysis does not build exactly is refused, naming the field.
TEST(Layoutv2, RefusesWhatItCannotBuild) {
  // detectron2's default backbone is no FPN: LayoutLMv2 asserts one.
  EXPECT_EQ(
      refusal_of(layoutv2_with("LayoutLMv2Model", R"("detectron2_config_args":{"MODEL.RESNETS.DEPTH":101},)"))
          .field,
      "detectron2_config_args.MODEL.BACKBONE.NAME");
  EXPECT_EQ(
      refusal_of(replaced(layoutv2_with("LayoutLMv2Model", kLayoutv2R50Args), R"("MODEL.BACKBONE.NAME")",
                          R"("MODEL.RESNETS.NORM":"GN","MODEL.BACKBONE.NAME")"))
          .field,
      "detectron2_config_args.MODEL.RESNETS.NORM");
  EXPECT_EQ(refusal_of(replaced(layoutv2_with("LayoutLMv2Model", kLayoutv2R50Args),
                                R"("MODEL.FPN.IN_FEATURES":["res2",)", R"("MODEL.FPN.IN_FEATURES":[)"))
                .field,
            "detectron2_config_args.MODEL.FPN.IN_FEATURES");
  EXPECT_EQ(refusal_of(replaced(kLayoutv2Base, "[7,7,256]", "[7,7,512]")).field, "image_feature_pool_shape");
  EXPECT_EQ(
      refusal_of(replaced(kLayoutv2Base, R"("num_attention_heads":12)", R"("num_attention_heads":7)")).field,
      "num_attention_heads");
}

}  // namespace
}  // namespace ma::test
