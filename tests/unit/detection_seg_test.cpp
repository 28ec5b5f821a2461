// ViTDet, the ViTPose backbone, ViTPose, ViTMatte and MGP-STR (model/families/vitdet.cpp, vitpose.cpp,
// vitmatte.cpp, mgp_str.cpp). The counts are those of a torch reconstruction of transformers' classes
// (modeling_vitdet.py, modeling_vitpose_backbone.py, modeling_vitpose.py, modeling_vitmatte.py,
// modeling_mgp_str.py), which gives the same state_dict names, shapes and order as our templates (the
// helper's verify/ folder), cross-checked against the Hub's published sizes where known.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// hustvl/vitmatte-small-composition-1k's config.json, its shape fields: a ViTDet-S backbone reading the
// image and the trimap (4 channels) at 512 pixels, windowed attention with relative positions in all but
// every third layer, which ends in a residual bottleneck block.
constexpr const char* kVitMatteSmall =
    R"({"model_type":"vitmatte","architectures":["VitMatteForImageMatting"],"hidden_size":384,
    "convstream_hidden_sizes":[48,96,192],"fusion_hidden_sizes":[256,128,64,32],
    "backbone_config":{"model_type":"vitdet","hidden_size":384,"num_attention_heads":6,"image_size":512,
    "num_channels":4,"use_relative_position_embeddings":true,"window_size":14,
    "window_block_indices":[0,1,3,4,6,7,9,10],"residual_block_indices":[2,5,8,11],
    "out_features":["stage12"],"out_indices":[12]}})";

// usyd-community/vitpose-base-simple's config.json, its shape fields (17 COCO keypoints).
std::string vitpose_base_config(bool simple) {
  return std::string(R"({"model_type":"vitpose","architectures":["VitPoseForPoseEstimation"],)") +
         R"("backbone_config":{"model_type":"vitpose_backbone","out_indices":[12]},"use_simple_decoder":)" +
         (simple ? "true," : "false,") + id2label_of(17) + "}";
}

// ---- ViTDet ----

// VitDetConfig's defaults (ViT-B/16 at 224 pixels, absolute positions only): 85,796,352 parameters, as the
// reconstruction gives; no [CLS] token, pooler or final norm, but a position row for a class token.
TEST(DetectionSeg, VitDetDefaultsCountAsTransformersBuildsThem) {
  const std::string cfg = R"({"model_type":"vitdet"})";
  EXPECT_EQ(parameters_of(cfg), 85'796'352u);
  const ModelTemplate t = template_of(cfg);
  EXPECT_EQ(find_tensor(t, "embeddings.position_embeddings")->shape, (Shape{1, 197, 768}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.11.attention.qkv.weight")->shape, (Shape{2304, 768}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.0.attention.rel_pos_h"), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 12u);
  EXPECT_EQ(parameters_of(R"({"model_type":"vitdet","architectures":["VitDetBackbone"]})"), 85'796'352u);
  expect_every_tensor_placed(t);
}

// Relative positions are sized by the window in windowed layers (2 * 14 - 1 rows) and by image_size /
// patch_size in global ones (2 * 32 - 1); VitDetAttention registers them before qkv and proj.
TEST(DetectionSeg, VitDetRelativePositionsFollowTheWindow) {
  const std::string backbone_only =
      R"({"model_type":"vitdet","hidden_size":384,"num_attention_heads":6,"image_size":512,"num_channels":4,
      "use_relative_position_embeddings":true,"window_size":14,"window_block_indices":[0,1,3,4,6,7,9,10],
      "residual_block_indices":[2,5,8,11]})";
  EXPECT_EQ(parameters_of(backbone_only), 23'745'792u);
  const ModelTemplate t = template_of(backbone_only);
  EXPECT_EQ(find_tensor(t, "encoder.layer.0.attention.rel_pos_h")->shape, (Shape{27, 64}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.2.attention.rel_pos_w")->shape, (Shape{63, 64}));
  EXPECT_LT(tensor_index(t, "encoder.layer.0.attention.rel_pos_w"),
            tensor_index(t, "encoder.layer.0.attention.qkv.weight"));
  EXPECT_EQ(find_tensor(t, "encoder.layer.2.residual.conv2.weight")->shape, (Shape{192, 192, 3, 3}));
  EXPECT_EQ(find_tensor(t, "encoder.layer.1.residual.conv1.weight"), nullptr);
  expect_every_tensor_placed(t);
}

// ---- ViTPose ----

// vitpose-base-simple: 85,912,337 parameters (the reconstruction; the Hub's float32 file is ~344 MB). Its
// backbone keeps ViT's transformers 4 names; the simple head is one 3x3 conv to the 17 heatmaps.
TEST(DetectionSeg, VitPoseBaseSimpleCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(vitpose_base_config(true)), 85'912'337u);
  const ModelTemplate t = template_of(vitpose_base_config(true));
  EXPECT_EQ(find_tensor(t, "backbone.embeddings.position_embeddings")->shape, (Shape{1, 193, 768}));
  EXPECT_NE(find_tensor(t, "backbone.encoder.layer.11.attention.attention.query.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "head.conv.weight")->shape, (Shape{17, 768, 3, 3}));
  expect_every_tensor_placed(t);
}

// The classic head: two bias-free transposed convs to 256 channels with batch norms, then a 1x1 conv.
TEST(DetectionSeg, VitPoseClassicHeadDeconvolves) {
  const ModelTemplate t = template_of(vitpose_base_config(false));
  EXPECT_EQ(find_tensor(t, "head.deconv1.weight")->shape, (Shape{768, 256, 4, 4}));
  EXPECT_EQ(find_tensor(t, "head.batchnorm2.running_var")->kind, TensorKind::Buffer);
  // usyd-community/vitpose-base (this head): 89,994,513 (the reconstruction; the Hub shows 90M).
  EXPECT_EQ(total_of(t), 89'994'513u);
  expect_every_tensor_placed(t);
}

// ViTPose+ (num_experts 6, part_features 192): fc2 keeps 768 - 192 channels, each expert adds 192.
TEST(DetectionSeg, VitPosePlusSplitsTheMlpAmongExperts) {
  const std::string plus = replaced(vitpose_base_config(false), R"("out_indices":[12])",
                                    R"("out_indices":[12],"num_experts":6,"part_features":192)");
  EXPECT_EQ(parameters_of(plus), 125'395'473u);
  const ModelTemplate t = template_of(plus);
  EXPECT_EQ(find_tensor(t, "backbone.encoder.layer.0.mlp.fc2.weight")->shape, (Shape{576, 3072}));
  EXPECT_EQ(find_tensor(t, "backbone.encoder.layer.0.mlp.experts.5.weight")->shape, (Shape{192, 3072}));
  expect_every_tensor_placed(t);
}

// VitPoseBackbone configured alone: VitPoseBackboneConfig's defaults (256 x 192 pixels) give 85,794,816.
TEST(DetectionSeg, VitPoseBackboneAlone) {
  EXPECT_EQ(parameters_of(R"({"model_type":"vitpose_backbone","architectures":["VitPoseBackbone"]})"),
            85'794'816u);
}

// ---- ViTMatte ----

// vitmatte-small-composition-1k: 25,814,753 parameters (the Hub shows 25.8M).
TEST(DetectionSeg, VitMatteSmallCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kVitMatteSmall), 25'814'753u);
  const ModelTemplate t = template_of(kVitMatteSmall);
  EXPECT_EQ(find_tensor(t, "decoder.convstream.convs.0.conv.weight")->shape, (Shape{48, 4, 3, 3}));
  // The first fusion block reads the 384 ViT channels beside the deepest stream map (192).
  EXPECT_EQ(find_tensor(t, "decoder.fusion_blocks.0.conv.conv.weight")->shape, (Shape{256, 576, 3, 3}));
  EXPECT_EQ(find_tensor(t, "decoder.fusion_blocks.3.conv.conv.weight")->shape, (Shape{32, 68, 3, 3}));
  EXPECT_EQ(find_tensor(t, "decoder.matting_head.matting_convs.3.weight")->shape, (Shape{1, 16, 1, 1}));
  expect_every_tensor_placed(t);
}

// ---- MGP-STR ----

// alibaba-damo/mgp-str-base's config.json, its shape fields.
constexpr const char* kMgpStrBase =
    R"({"model_type":"mgp-str","architectures":["MgpstrForSceneTextRecognition"],"image_size":[32,128],
    "patch_size":4,"max_token_length":27,"num_character_labels":38,"num_bpe_labels":50257,
    "num_wordpiece_labels":30522,"hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,
    "mlp_ratio":4.0,"qkv_bias":true,"distilled":false})";

// mgp-str-base: 147,952,305 parameters (the reconstruction; the Hub shows 148M): a ViT-B over 8 x 32 patches
// and a [CLS] token, three A^3 modules and the character / BPE / WordPiece heads.
TEST(DetectionSeg, MgpStrBaseCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kMgpStrBase), 147'952'305u);
  const ModelTemplate t = template_of(kMgpStrBase);
  EXPECT_EQ(find_tensor(t, "mgp_str.embeddings.pos_embed")->shape, (Shape{1, 257, 768}));
  EXPECT_EQ(find_tensor(t, "mgp_str.encoder.blocks.11.attn.qkv.weight")->shape, (Shape{2304, 768}));
  EXPECT_EQ(find_tensor(t, "bpe_a3_module.tokenLearner.0.weight")->shape, (Shape{768, 96, 1, 1}));
  EXPECT_EQ(find_tensor(t, "wp_a3_module.tokenLearner.1.weight")->shape, (Shape{27, 768, 1, 1}));
  EXPECT_EQ(find_tensor(t, "bpe_head.weight")->shape, (Shape{50257, 768}));
  expect_every_tensor_placed(t);
  // A distilled config adds a position row only; MgpstrModel has no heads.
  EXPECT_EQ(parameters_of(R"({"model_type":"mgp-str","distilled":true,"hidden_size":384,
            "num_attention_heads":6})"),
            21'411'840u);
}

// Configs transformers cannot build as written, or whose backbone config.json does not describe.
TEST(DetectionSeg, RefusesWhatItCannotBuild) {
  EXPECT_EQ(refusal_of(R"({"model_type":"vitmatte","fusion_hidden_sizes":[256,128,64]})").field,
            "fusion_hidden_sizes");
  EXPECT_EQ(refusal_of(R"({"model_type":"vitpose","backbone_config":{"model_type":"vitpose_backbone",
            "num_experts":6,"part_features":800}})")
                .field,
            "backbone_config.part_features");
  EXPECT_EQ(refusal_of(R"({"model_type":"vitpose","backbone":"usyd-community/vitpose-base"})").field,
            "backbone_config");
  EXPECT_EQ(refusal_of(R"({"model_type":"vitpose","backbone_config":{"model_type":"vit"}})").field,
            "backbone_config.model_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"vitdet","architectures":["VitDetForObjectDetection"]})").field,
            "architectures");
  // The A^3 modules' convolutions have groups=8.
  EXPECT_EQ(
      refusal_of(replaced(kMgpStrBase, R"("hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12)",
                          R"("hidden_size":36,"num_hidden_layers":1,"num_attention_heads":6)"))
          .field,
      "hidden_size");
}

}  // namespace
}  // namespace ma::test
