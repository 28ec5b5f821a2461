// wav2vec 2.0 and HuBERT (model/families/speech_encoders.cpp): the released CTC models' counts, the feature
// encoder's norms, the weight-normed positional convolution under the Hub's names, and the heads.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/wav2vec2-base-960h: every size the config class's default ("group" norm on the first convolution,
// bias-free convolutions, post-norm layers).
constexpr const char* kBase960h = R"({"model_type":"wav2vec2","architectures":["Wav2Vec2ForCTC"],
    "feat_extract_norm":"group","conv_bias":false,"do_stable_layer_norm":false,"mask_time_prob":0.05,
    "vocab_size":32})";

// facebook/wav2vec2-large-960h-lv60-self and facebook/hubert-large-ls960-ft: a LayerNorm after every
// convolution, biased convolutions, pre-norm ("stable") layers.
std::string large(const std::string& type, const std::string& cls) {
  return R"({"model_type":")" + type + R"(","architectures":[")" + cls + R"("],"feat_extract_norm":"layer",
      "conv_bias":true,"do_stable_layer_norm":true,"hidden_size":1024,"num_hidden_layers":24,
      "num_attention_heads":16,"intermediate_size":4096,"mask_time_prob":0.05,"vocab_size":32})";
}

// 94,396,320 and 315,471,520: num_parameters() as a public transcription tool records them for these two
// checkpoints. HuBERT-large's modules are the same set (its published size: 317M, rounded).
TEST(SpeechEncoders, CtcModelsCountAsRecorded) {
  EXPECT_EQ(parameters_of(kBase960h), 94'396'320u);
  EXPECT_EQ(parameters_of(large("wav2vec2", "Wav2Vec2ForCTC")), 315'471'520u);
  EXPECT_EQ(parameters_of(large("hubert", "HubertForCTC")), 315'471'520u);
  // Pre-training adds the quantizer and both projections: 95,044,608, the paper's "95M" for BASE.
  EXPECT_EQ(parameters_of(R"({"model_type":"wav2vec2","architectures":["Wav2Vec2ForPreTraining"]})"),
            95'044'608u);
}

TEST(SpeechEncoders, FeatureEncoderPositionsAndHead) {
  const ModelTemplate t = template_of(kBase960h);
  const std::string c = "wav2vec2.feature_extractor.conv_layers.";
  EXPECT_EQ(find_tensor(t, c + "0.conv.weight")->shape, Shape({512, 1, 10}));
  EXPECT_EQ(find_tensor(t, c + "6.conv.weight")->shape, Shape({512, 512, 2}));
  EXPECT_NE(find_tensor(t, c + "0.layer_norm.weight"), nullptr);  // the GroupNorm
  EXPECT_EQ(find_tensor(t, c + "1.layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, c + "0.conv.bias"), nullptr);
  // transformers 5 builds torch's parametrized weight norm; the Hub's checkpoints store weight_g / weight_v.
  const TemplateTensor* v =
      find_tensor(t, "wav2vec2.encoder.pos_conv_embed.conv.parametrizations.weight.original1");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shape, Shape({768, 48, 128}));
  EXPECT_EQ(stored_name(*v), "wav2vec2.encoder.pos_conv_embed.conv.weight_v");
  EXPECT_EQ(find_tensor(t, "wav2vec2.masked_spec_embed")->shape, Shape({768}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, Shape({32, 768}));
  EXPECT_TRUE(t.arch.post_norm);
  EXPECT_FALSE(template_of(large("wav2vec2", "Wav2Vec2ForCTC")).arch.post_norm);
  // HuBERT's optional pieces: no projection norm, a batch-normed plain positional convolution.
  const ModelTemplate h = template_of(R"({"model_type":"hubert","feat_proj_layer_norm":false,
      "conv_pos_batch_norm":true})");
  EXPECT_EQ(find_tensor(h, "feature_projection.layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(h, "encoder.pos_conv_embed.conv.weight")->shape, Shape({768, 48, 128}));
  EXPECT_EQ(find_tensor(h, "encoder.pos_conv_embed.batch_norm.running_mean")->kind, TensorKind::Buffer);
  EXPECT_THROW(template_of(R"({"model_type":"wav2vec2","conv_dim":[512,512],"conv_kernel":[10]})"), Error);
  EXPECT_THROW(template_of(R"({"model_type":"wav2vec2","feat_extract_norm":"batch"})"), Error);
}

}  // namespace
}  // namespace ma::test
