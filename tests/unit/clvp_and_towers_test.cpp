// GroupViT's and X-CLIP's towers configured alone (groupvit.cpp, xclip.cpp) and CLVP (clvp.cpp). Expected
// totals are counted independently from transformers' modeling code (a script counting
// ClvpModelForConditionalGeneration's modules; the tower sums below), cross-checked against published figures
// where known.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// Config classes' defaults: GroupViTTextConfig / GroupViTVisionConfig are nvidia/groupvit-gcc-yfcc's,
// XCLIPTextConfig / XCLIPVisionConfig microsoft/xclip-base-patch32's, ClvpConfig susnato/clvp_dev's.
constexpr const char* kTextEGroupVitText = R"({"model_type":"groupvit_text_model"})";
constexpr const char* kTextEGroupVitVision = R"({"model_type":"groupvit_vision_model"})";
constexpr const char* kTextEXclipText = R"({"model_type":"xclip_text_model"})";
constexpr const char* kTextEXclipVision = R"({"model_type":"xclip_vision_model"})";
constexpr const char* kTextEClvp =
    R"({"model_type":"clvp","architectures":["ClvpModelForConditionalGeneration"],
    "decoder_config":{"num_attention_heads":16},"text_config":{"vocab_size":256}})";

// GroupViTTextModel keeps GroupViTTextTransformer under text_model. (no flat layout, no disk rename):
// 49,408 x 256 + 77 x 256 embeddings, 12 CLIP layers of 789,760, a final LayerNorm: 22,145,792.
TEST(TextETowers, GroupVitTextModelWrapsItsTransformer) {
  const ModelTemplate t = template_of(kTextEGroupVitText);
  EXPECT_EQ(parameters_of(kTextEGroupVitText), 22'145'792u);
  EXPECT_EQ(t.arch.architecture, "GroupViTTextModel");
  ASSERT_NE(find_tensor(t, "text_model.embeddings.token_embedding.weight"), nullptr);
  EXPECT_EQ(stored_name(*find_tensor(t, "text_model.final_layer_norm.weight")),
            "text_model.final_layer_norm.weight");
}

// GroupViTVisionModel: the grouping tower under vision_model., 28,837,136 parameters (with the text tower
// and the two projections, 2,633,984 + 2,109,440, and logit_scale: GroupViTModel's 55,726,353).
TEST(TextETowers, GroupVitVisionModelWrapsItsTransformer) {
  const ModelTemplate t = template_of(kTextEGroupVitVision);
  EXPECT_EQ(parameters_of(kTextEGroupVitVision), 28'837'136u);
  EXPECT_EQ(t.arch.num_layers, 12u);  // depths [6, 3, 3]
  ASSERT_NE(find_tensor(t, "vision_model.encoder.stages.1.group_projector.1.fc1.weight"), nullptr);
  EXPECT_EQ(refusal_of(R"({"model_type":"groupvit_vision_model","num_group_tokens":[64,8]})").field,
            "num_group_tokens");
}

// XCLIPTextModel is CLIPTextModel's flat layout (CLIP ViT-B/32's text tower: 63,165,952); checkpoints keep
// text_model. (conversion_mapping.py: xclip_text_model -> clip_text_model's PrefixChange).
TEST(TextETowers, XclipTextModelIsFlatWithPrefixedCheckpoints) {
  const ModelTemplate t = template_of(kTextEXclipText);
  EXPECT_EQ(parameters_of(kTextEXclipText), 63'165'952u);
  EXPECT_EQ(stored_name(*find_tensor(t, "embeddings.token_embedding.weight")),
            "text_model.embeddings.token_embedding.weight");
}

// XCLIPVisionModel: CLIP ViT-B/32's vision tower (87,456,000) plus each layer's message_fc, message_ln and
// message_attn (2,954,496 x 12): 122,909,952; pre_layernorm registered after post_layernorm.
TEST(TextETowers, XclipVisionModelAddsCrossFrameMessages) {
  const ModelTemplate t = template_of(kTextEXclipVision);
  EXPECT_EQ(parameters_of(kTextEXclipVision), 122'909'952u);
  EXPECT_LT(tensor_index(t, "post_layernorm.weight"), tensor_index(t, "pre_layernorm.weight"));
  EXPECT_EQ(stored_name(*find_tensor(t, "encoder.layers.0.message_fc.weight")),
            "vision_model.encoder.layers.0.message_fc.weight");
  EXPECT_EQ(find_tensor(t, "mit.position_embedding"), nullptr);  // XCLIPModel's, not the tower's
}

// ClvpModelForConditionalGeneration with ClvpConfig's defaults: conditioning encoder 25,961,472, speech
// decoder (ClvpForCausalLM) 395,302,914, each encoder 118,875,648, logit_scale 1: 659,015,683
// (count_clvp.py).
TEST(TextETowers, ClvpCountsAsTransformersBuildsIt) {
  const ModelTemplate t = template_of(kTextEClvp);
  EXPECT_EQ(parameters_of(kTextEClvp), 659'015'683u);
  EXPECT_EQ(tensor_index(t, "logit_scale"), 0u);
  // GPT-2's Conv1D stores [in, out]; the lm_head is a biased nn.Linear of its own (no tie).
  EXPECT_EQ(find_tensor(t, "speech_decoder_model.model.decoder.layers.0.mlp.c_fc.weight")->shape,
            (Shape{1024, 4096}));
  ASSERT_NE(find_tensor(t, "speech_decoder_model.lm_head.bias"), nullptr);
  EXPECT_TRUE(find_tensor(t, "speech_decoder_model.lm_head.weight")->tied_to.empty());
  // The encoders' rotary inv_freq is a persistent buffer: max(768 // 24, 32) = 32 wide, 16 frequencies.
  const TemplateTensor* inv = find_tensor(t, "text_encoder_model.rotary_pos_emb.inv_freq");
  ASSERT_NE(inv, nullptr);
  EXPECT_EQ(inv->kind, TensorKind::Buffer);
  EXPECT_EQ(inv->shape, (Shape{16}));
  // The text encoder's q/k/v are bias-free (use_attention_bias false), the decoder's biased.
  EXPECT_EQ(find_tensor(t, "text_encoder_model.layers.0.self_attn.q_proj.bias"), nullptr);
  ASSERT_NE(find_tensor(t, "conditioning_encoder.mel_attn_blocks.0.q_proj.bias"), nullptr);
  // Each encoder ends in a projection into the space the two share: a head, not a patch embedding.
  for (const char* projection :
       {"text_encoder_model.projection.weight", "speech_encoder_model.projection.weight"}) {
    ASSERT_NE(find_tensor(t, projection), nullptr) << projection;
    EXPECT_EQ(place_tensor(projection).block, Block::LmHead) << projection;
    EXPECT_EQ(place_tensor(projection).role, "projection") << projection;
  }
}

TEST(TextETowers, ClvpRefusesWhatTransformersCannotBuild) {
  EXPECT_EQ(
      refusal_of(replaced(kTextEClvp, R"("num_attention_heads":16)", R"("num_attention_heads":3)")).field,
      "decoder_config.num_attention_heads");
  EXPECT_EQ(
      refusal_of(replaced(kTextEClvp, R"("vocab_size":256)", R"("vocab_size":256,"summary_use_proj":true)"))
          .field,
      "text_config.summary_use_proj");
}

}  // namespace
}  // namespace ma::test
