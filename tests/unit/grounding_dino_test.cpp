// Grounding DINO and MM Grounding DINO (model/families/grounding_dino.cpp, grounding_dino_body.cpp) on their
// Hub configs. Expected counts come from an independent count of transformers' modules
// (modeling_grounding_dino.py, modular_mm_grounding_dino.py: a script rebuilding their construction, which
// also matched every name, shape and position), cross-checked against the published sizes:
// IDEA-Research/grounding-dino-tiny 172M, grounding-dino-base 233M (its safetensors also hold the 24 Swin-B
// blocks' 144 x 144 relative_position_index buffers: 232,313,216 + 497,664 = 232.8M).
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// IDEA-Research/grounding-dino-tiny's config.json, its shape fields (the rest are GroundingDinoConfig's
// defaults, which are this checkpoint's).
constexpr const char* kGroundingDinoTiny =
    R"({"model_type":"grounding-dino","architectures":["GroundingDinoForObjectDetection"],
    "backbone_config":{"model_type":"swin","out_features":["stage2","stage3","stage4"],"out_indices":[2,3,4]},
    "text_config":{"model_type":"bert"},"d_model":256,"num_queries":900,"num_feature_levels":4,
    "encoder_layers":6,"decoder_layers":6,"encoder_ffn_dim":2048,"decoder_ffn_dim":2048,
    "encoder_attention_heads":8,"decoder_attention_heads":8,"two_stage":true,"decoder_bbox_embed_share":true})";

// IDEA-Research/grounding-dino-base: a Swin-B backbone at 384 pixels, window 12.
constexpr const char* kGroundingDinoBase =
    R"({"model_type":"grounding-dino","architectures":["GroundingDinoForObjectDetection"],
    "backbone_config":{"model_type":"swin","depths":[2,2,18,2],"embed_dim":128,"image_size":384,
    "num_heads":[4,8,16,32],"window_size":12,"out_features":["stage2","stage3","stage4"],"out_indices":[2,3,4]},
    "text_config":{"model_type":"bert"}})";

// openmmlab-community/mm_grounding_dino_tiny_o365v1_goldg_v3det's shape fields: grounding-dino-tiny's.
constexpr const char* kMmGroundingDinoTiny =
    R"({"model_type":"mm-grounding-dino","architectures":["MMGroundingDinoForObjectDetection"],
    "backbone_config":{"model_type":"swin","out_features":["stage2","stage3","stage4"],"out_indices":[2,3,4]},
    "text_config":{"model_type":"bert"}})";

// One GroundingDinoMLPPredictionHead(256, 256, 4, 3): 2 x (256 x 256 + 256) + 256 x 4 + 4.
constexpr uint64_t kGroundingDinoBoxHead = 132'612;

// Swin-T (28.3M without its classifier and final norm) + BERT-base without pooler (108.9M) + the fused
// encoder, the decoder and one shared box head: 172,249,090.
TEST(GroundingDino, TinyCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kGroundingDinoTiny), 172'249'090u);
  // GroundingDinoModel has no box heads: the decoder's bbox_embed stays None.
  EXPECT_EQ(
      parameters_of(replaced(kGroundingDinoTiny, "GroundingDinoForObjectDetection", "GroundingDinoModel")),
      172'249'090u - kGroundingDinoBoxHead);
  // A config.json that omits every field gets GroundingDinoConfig's defaults: grounding-dino-tiny.
  EXPECT_EQ(
      parameters_of(R"({"model_type":"grounding-dino","architectures":["GroundingDinoForObjectDetection"]})"),
      172'249'090u);
}

TEST(GroundingDino, BaseCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kGroundingDinoBase), 232'313'216u);
}

// level_embed, the model's own parameter, comes first; the detector's box heads are one MLP listed for every
// decoder layer, in the decoder and again at the top level, stored once as bbox_embed.0.
TEST(GroundingDino, SharedBoxHeadIsStoredOnceAsBboxEmbed0) {
  const ModelTemplate t = template_of(kGroundingDinoTiny);
  EXPECT_EQ(tensor_index(t, "model.level_embed"), 0u);
  const TemplateTensor* first = find_tensor(t, "model.decoder.bbox_embed.0.layers.0.weight");
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->tied_to.empty());
  EXPECT_EQ(stored_name(*first), "bbox_embed.0.layers.0.weight");
  for (const char* copy : {"model.decoder.bbox_embed.5.layers.2.bias", "bbox_embed.0.layers.2.bias",
                           "bbox_embed.3.layers.2.bias"}) {
    const TemplateTensor* x = find_tensor(t, copy);
    ASSERT_NE(x, nullptr) << copy;
    EXPECT_EQ(x->tied_to, "model.decoder.bbox_embed.0.layers.2.bias") << copy;
  }
  EXPECT_LT(tensor_index(t, "model.decoder.bbox_embed.0.layers.0.weight"),
            tensor_index(t, "model.enc_output.weight"));
  // SwinBackbone's layers keep transformers 4's names on disk.
  const TemplateTensor* q =
      find_tensor(t, "model.backbone.conv_encoder.model.encoder.layers.2.blocks.5.attention.q_proj.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(stored_name(*q),
            "model.backbone.conv_encoder.model.encoder.layers.2.blocks.5.attention.self.query.weight");
  ASSERT_NE(find_tensor(t, "model.backbone.conv_encoder.model.hidden_states_norms.stage4.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.text_backbone.pooler.dense.weight"), nullptr);  // add_pooling_layer=False
  ASSERT_NE(find_tensor(t, "model.encoder.layers.5.fusion_layer.vision_param"), nullptr);
  expect_every_tensor_placed(t);
  expect_reads_cleanly(kGroundingDinoTiny);
}

// decoder_bbox_embed_share false: a box head per decoder layer; two_stage false: learned reference points
// instead of the proposal modules (enc_output, its norm and the proposal box head).
TEST(GroundingDino, UnsharedHeadsAndSingleStage) {
  EXPECT_EQ(parameters_of(replaced(kGroundingDinoTiny, R"("decoder_bbox_embed_share":true)",
                                   R"("decoder_bbox_embed_share":false)")),
            172'249'090u + 5 * kGroundingDinoBoxHead);
  const std::string single = replaced(kGroundingDinoTiny, R"("two_stage":true)", R"("two_stage":false)");
  EXPECT_EQ(parameters_of(single),
            172'249'090u - (256 * 256 + 256) - 2 * 256 - kGroundingDinoBoxHead + 900 * 4);
  const ModelTemplate t = template_of(single);
  ASSERT_NE(find_tensor(t, "model.reference_points.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.enc_output.weight"), nullptr);
}

// MM Grounding DINO: grounding-dino-tiny's modules plus a learned bias in each contrastive class head (one
// per decoder layer, and the proposals'), 7 scalars. transformers 5 ties its box heads as Grounding DINO's.
TEST(GroundingDino, MmGroundingDinoAddsClassBiases) {
  EXPECT_EQ(parameters_of(kMmGroundingDinoTiny), 172'249'090u + 7);
  const ModelTemplate t = template_of(kMmGroundingDinoTiny);
  const TemplateTensor* bias = find_tensor(t, "class_embed.2.bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->tied_to, "model.decoder.class_embed.2.bias");
  EXPECT_EQ(stored_name(*find_tensor(t, "model.decoder.class_embed.2.bias")), "class_embed.2.bias");
  ASSERT_NE(find_tensor(t, "model.encoder_output_class_embed.bias"), nullptr);
  expect_every_tensor_placed(t);
}

TEST(GroundingDino, RefusesWhatTransformersRefusesOrWeDoNotModel) {
  // The text enhancer runs encoder_attention_heads // 2 heads: 0 of them cannot be built.
  const Refusal heads = refusal_of(
      replaced(kGroundingDinoTiny, R"("encoder_attention_heads":8)", R"("encoder_attention_heads":1)"));
  EXPECT_EQ(heads.kind, ErrorKind::Malformed);
  EXPECT_EQ(heads.field, "encoder_attention_heads");
  const Refusal text =
      refusal_of(replaced(kGroundingDinoTiny, R"({"model_type":"bert"})", R"({"model_type":"roberta"})"));
  EXPECT_EQ(text.kind, ErrorKind::Unsupported);
  EXPECT_EQ(text.field, "text_config.model_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"grounding-dino","use_timm_backbone":true})").field,
            "use_timm_backbone");
  EXPECT_EQ(refusal_of(R"({"model_type":"grounding-dino","two_stage_bbox_embed_share":true,
                "decoder_bbox_embed_share":false})")
                .field,
            "two_stage_bbox_embed_share");
}

}  // namespace
}  // namespace ma::test
