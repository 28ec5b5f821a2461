// CLAP (model/families/clap.cpp) on laion's configs. The counts are those transformers' ClapModel,
// ClapTextModel and ClapAudioModel give (counted independently from modeling_clap.py's module construction in
// the helper's verify/count_clap.py); laion/clap-htsat-unfused's model card gives 153.5M parameters.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// laion/clap-htsat-unfused's config.json, its shape fields (its other fields equal ClapConfig's defaults).
constexpr const char* kClapUnfused =
    R"({"model_type":"clap","architectures":["ClapModel"],"projection_dim":512,
    "text_config":{"model_type":"clap_text_model","vocab_size":50265,"hidden_size":768,"num_hidden_layers":12,
    "num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":514,"type_vocab_size":1},
    "audio_config":{"model_type":"clap_audio_model","depths":[2,2,6,2],"num_attention_heads":[4,8,16,32],
    "patch_embeds_hidden_size":96,"window_size":8,"num_mel_bins":64,"spec_size":256,"patch_size":4,
    "patch_stride":[4,4],"hidden_size":768,"enable_fusion":false,"fusion_type":null}})";

std::string clap_fused_config() {
  return replaced(kClapUnfused, R"("enable_fusion":false,"fusion_type":null)",
                  R"("enable_fusion":true,"fusion_type":"aff_2d")");
}

// 153,492,890 parameters: the model card's 153.5M. Two 0-d logit scales come first.
TEST(SpeechD, ClapUnfusedCountsAsTransformersBuildsIt) {
  EXPECT_EQ(parameters_of(kClapUnfused), 153'492'890u);
  const ModelTemplate t = template_of(kClapUnfused);
  EXPECT_EQ(t.tensors[0].name, "logit_scale_a");
  EXPECT_EQ(t.tensors[1].name, "logit_scale_t");
  // The Swin blocks keep transformers 4's names, their index a persistent buffer.
  const std::string b = "audio_model.audio_encoder.layers.3.blocks.1.attention.self.";
  ASSERT_NE(find_tensor(t, b + "relative_position_bias_table"), nullptr);
  EXPECT_EQ(find_tensor(t, b + "relative_position_bias_table")->shape, (Shape{225, 32}));
  ASSERT_NE(find_tensor(t, b + "relative_position_index"), nullptr);
  EXPECT_EQ(find_tensor(t, b + "relative_position_index")->kind, TensorKind::Buffer);
  // The text embeddings' persistent buffers precede the embedding tables.
  ASSERT_NE(find_tensor(t, "text_model.embeddings.token_type_ids"), nullptr);
  EXPECT_EQ(find_tensor(t, "text_model.embeddings.token_type_ids")->kind, TensorKind::Buffer);
  ASSERT_NE(find_tensor(t, "audio_model.audio_encoder.batch_norm.running_var"), nullptr);
  EXPECT_EQ(find_tensor(t, "audio_projection.linear1.weight")->shape, (Shape{512, 768}));
  EXPECT_EQ(find_tensor(t, "audio_model.audio_encoder.layers.2.downsample.reduction.weight")->shape,
            (Shape{768, 1536}));
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 12u);
  ASSERT_NE(t.arch.stack(StackRole::Audio), nullptr);
}

// The fused checkpoint adds the attentional feature fusion (two conv/BatchNorm branches, 96 -> 24 -> 96) and
// the local crops' (4, 12) convolution: 14,640 parameters more.
TEST(SpeechD, ClapFusedAddsTheFusionBlock) {
  const std::string fused = clap_fused_config();
  EXPECT_EQ(parameters_of(fused), 153'507'530u);
  const ModelTemplate t = template_of(fused);
  EXPECT_EQ(find_tensor(t, "audio_model.audio_encoder.patch_embed.mel_conv2d.weight")->shape,
            (Shape{96, 1, 4, 12}));
  EXPECT_EQ(find_tensor(t, "audio_model.audio_encoder.patch_embed.fusion_model.global_att.1.weight")->shape,
            (Shape{24, 96, 1, 1}));
  // "channel_map" fusion reads the four crops as channels of the patch convolution.
  const ModelTemplate map = template_of(replaced(fused, R"("aff_2d")", R"("channel_map")"));
  EXPECT_EQ(find_tensor(map, "audio_model.audio_encoder.patch_embed.proj.weight")->shape,
            (Shape{96, 4, 4, 4}));
}

// The towers alone: ClapTextModel (RoBERTa-base's shape with a pooler) and ClapAudioModel (the encoder under
// audio_encoder.), at their config classes' defaults.
TEST(SpeechD, ClapTowersAlone) {
  EXPECT_EQ(parameters_of(R"({"model_type":"clap_text_model"})"), 124'645'632u);
  EXPECT_EQ(parameters_of(R"({"model_type":"clap_audio_model"})"), 27'534'488u);
  const ModelTemplate audio = template_of(R"({"model_type":"clap_audio_model"})");
  ASSERT_NE(find_tensor(audio, "audio_encoder.norm.weight"), nullptr);
  // ...WithProjection nests the model and adds the projection MLP.
  EXPECT_EQ(
      parameters_of(R"({"model_type":"clap_text_model","architectures":["ClapTextModelWithProjection"]})"),
      124'645'632u + 768u * 512 + 512 + 512u * 512 + 512);
  const ModelTemplate projected =
      template_of(R"({"model_type":"clap_audio_model","architectures":["ClapAudioModelWithProjection"]})");
  ASSERT_NE(find_tensor(projected, "audio_model.audio_encoder.norm.weight"), nullptr);
  ASSERT_NE(find_tensor(projected, "audio_projection.linear2.bias"), nullptr);
}

// ClapAudioSelfAttention raises unless each stage's heads divide its width.
TEST(SpeechD, ClapRefusesHeadsThatDoNotDivideTheWidth) {
  EXPECT_EQ(refusal_of(replaced(kClapUnfused, "[4,8,16,32]", "[5,8,16,32]")).field,
            "audio_config.num_attention_heads");
  EXPECT_EQ(
      refusal_of(replaced(kClapUnfused, R"("num_attention_heads":12)", R"("num_attention_heads":7)")).field,
      "text_config.num_attention_heads");
}

}  // namespace
}  // namespace ma::test
