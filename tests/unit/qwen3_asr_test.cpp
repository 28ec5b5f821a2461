// Qwen3-ASR (qwen3_asr, model/families/llava_like.cpp): Qwen3-Omni's audio encoder, a two-linear projector
// and Qwen3; its forced aligner the token-classification class. Independent figures: 2,038,052,480 for
// Qwen3-ASR-1.7B (Keras-Hub's preset), 782,426,112 for -0.6B (its named_parameters as published), and the
// Hub's 917,728,896 for Qwen3-ForcedAligner-0.6B-hf.
#include <gtest/gtest.h>

#include <string>

#include "template_test_support.h"

namespace ma::test {
namespace {

// Qwen/Qwen3-ASR-1.7B-hf's config.json, the fields that shape tensors.
std::string qwen3_asr(const std::string& architecture, const std::string& audio, const std::string& text,
                      const std::string& top) {
  return R"({"model_type":"qwen3_asr","architectures":[")" + architecture + R"("],)" + top +
         R"("audio_config":{"model_type":"qwen3_asr_encoder","downsample_hidden_size":480,"num_mel_bins":128,)" +
         audio +
         R"(},"text_config":{"model_type":"qwen3","head_dim":128,"num_key_value_heads":8,"vocab_size":)" +
         text + "}}";
}
const std::string k17b = qwen3_asr(
    "Qwen3ASRForConditionalGeneration",
    R"("d_model":1024,"encoder_attention_heads":16,"encoder_ffn_dim":4096,"encoder_layers":24,"output_dim":2048)",
    R"(151936,"hidden_size":2048,"intermediate_size":6144,"num_attention_heads":16,"num_hidden_layers":28)",
    R"("tie_word_embeddings":true,)");

TEST(Qwen3Asr, CountsAsPublished) {
  EXPECT_EQ(parameters_of(k17b), 2'038'052'480u);
  EXPECT_EQ(
      parameters_of(qwen3_asr(
          "Qwen3ASRForConditionalGeneration",
          R"("d_model":896,"encoder_attention_heads":14,"encoder_ffn_dim":3584,"encoder_layers":18,"output_dim":1024)",
          R"(151936,"hidden_size":1024,"intermediate_size":3072,"num_attention_heads":16,"num_hidden_layers":28)",
          R"("tie_word_embeddings":true,)")),
      782'426'112u);
  // The aligner: the 1.7B's encoder, Qwen3-0.6B's sizes (vocabulary 152,064) and a score head of 5,000
  // timestamp classes, never tied.
  const std::string aligner = qwen3_asr(
      "Qwen3ASRForTokenClassification",
      R"("d_model":1024,"encoder_attention_heads":16,"encoder_ffn_dim":4096,"encoder_layers":24,"output_dim":1024)",
      R"(152064,"hidden_size":1024,"intermediate_size":3072,"num_attention_heads":16,"num_hidden_layers":28)",
      R"("num_labels":5000,"tie_word_embeddings":true,)");
  EXPECT_EQ(parameters_of(aligner), 917'728'896u);
  const ModelTemplate a = template_of(aligner);
  EXPECT_EQ(find_tensor(a, "score.weight")->shape, Shape({5000, 1024}));
  EXPECT_EQ(find_tensor(a, "lm_head.weight"), nullptr);
}

TEST(Qwen3Asr, ConvolutionsThenWhispersLayers) {
  const ModelTemplate t = template_of(k17b);
  const std::string a = "model.audio_tower.";
  EXPECT_EQ(find_tensor(t, a + "conv2d1.weight")->shape, Shape({480, 1, 3, 3}));
  EXPECT_EQ(find_tensor(t, a + "conv2d3.bias")->shape, Shape({480}));
  // 128 mel bins are 16 after three stride-2 convolutions: 480 x 16 values a frame into conv_out.
  EXPECT_EQ(find_tensor(t, a + "conv_out.weight")->shape, Shape({1024, 7680}));
  EXPECT_EQ(find_tensor(t, a + "conv_out.bias"), nullptr);
  EXPECT_NE(find_tensor(t, a + "layers.23.self_attn.k_proj.bias"), nullptr);  // unlike Whisper's
  EXPECT_NE(find_tensor(t, a + "ln_post.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "model.multi_modal_projector.linear_2.weight")->shape, Shape({2048, 1024}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  ASSERT_NE(t.arch.stack(StackRole::Audio), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Audio)->mel_bins, 128u);
}

}  // namespace
}  // namespace ma::test
