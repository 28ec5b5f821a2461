// SeamlessM4T and SeamlessM4T v2 (model/families/seamless.h): the whole SeamlessM4TModel /
// SeamlessM4Tv2Model. Expected totals are sum(p.numel() for p in model.parameters()) of the transformers
// classes, from a reconstruction of their module trees (modeling_seamless_m4t.py, modeling_seamless_m4t_v2.py
// at 000513e6ac52; configuration defaults; the medium sizes from seamless_m4t/convert_fairseq2_to_hf.py);
// Meta's model cards quote 1.2B (medium) and 2.3B (large, v2-large).
#include <gtest/gtest.h>

#include <string>

#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/hf-seamless-m4t-medium: 12 + 12 text layers (FFN 4096), 12 speech layers, 4 + 4 unit layers.
const std::string kSeamlessMediumConfig =
    R"({"model_type":"seamless_m4t","architectures":["SeamlessM4TModel"],
    "vocab_size":256206,"hidden_size":1024,"max_position_embeddings":4096,"encoder_layers":12,
    "decoder_layers":12,"encoder_ffn_dim":4096,"decoder_ffn_dim":4096,"t2u_encoder_layers":4,
    "t2u_decoder_layers":4,"speech_encoder_layers":12})";

TEST(Seamless, M4TCounts) {
  EXPECT_EQ(parameters_of(kSeamlessMediumConfig), 1'209'461'122u);
  // facebook/hf-seamless-m4t-large: SeamlessM4TConfig's defaults.
  EXPECT_EQ(parameters_of(R"({"model_type":"seamless_m4t","architectures":["SeamlessM4TModel"]})"),
            2'359'990'658u);
  // Rotary speech positions (no position parameters, a saved inv_freq), no adapter, one layer per stack.
  EXPECT_EQ(parameters_of(R"({"model_type":"seamless_m4t","position_embeddings_type":"rotary",
      "add_adapter":false,"speech_encoder_layers":2,"encoder_layers":1,"decoder_layers":1,
      "t2u_encoder_layers":1,"t2u_decoder_layers":1})"),
            463'762'818u);
}

TEST(Seamless, M4TLayoutAndTies) {
  const ModelTemplate t = template_of(kSeamlessMediumConfig);
  // Registration order: shared, text_encoder, speech_encoder, text_decoder, lm_head, t2u_model, vocoder.
  EXPECT_EQ(t.tensors.front().name, "shared.weight");
  EXPECT_LT(tensor_index(t, "text_encoder.layer_norm.bias"),
            tensor_index(t, "speech_encoder.inner_layer_norm.bias"));
  EXPECT_LT(tensor_index(t, "speech_encoder.inner_layer_norm.bias"),
            tensor_index(t, "text_decoder.layers.0.self_attn.k_proj.weight"));
  EXPECT_LT(tensor_index(t, "lm_head.weight"),
            tensor_index(t, "t2u_model.model.encoder.layers.0.self_attn.k_proj.weight"));
  EXPECT_EQ(t.tensors.back().name, "vocoder.hifi_gan.conv_post.bias");
  // The text stacks' embeddings and both LM heads are tied.
  EXPECT_EQ(find_tensor(t, "text_encoder.embed_tokens.weight")->tied_to, "shared.weight");
  EXPECT_EQ(find_tensor(t, "text_decoder.embed_tokens.weight")->tied_to, "shared.weight");
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->tied_to, "shared.weight");
  EXPECT_EQ(find_tensor(t, "t2u_model.lm_head.weight")->tied_to,
            "t2u_model.model.decoder.embed_tokens.weight");
  EXPECT_EQ(find_tensor(t, "t2u_model.model.decoder.embed_tokens.weight")->shape, Shape({10082, 1024}));
  // v1's Conformer: Transformer-XL positions (own biases first), a BatchNorm with its statistics.
  const std::string a = "speech_encoder.encoder.layers.0.self_attn.";
  EXPECT_EQ(find_tensor(t, a + "pos_bias_u")->shape, Shape({16, 64}));
  EXPECT_EQ(tensor_index(t, a + "pos_bias_v") + 1, tensor_index(t, a + "linear_q.weight"));
  EXPECT_EQ(find_tensor(t, a + "linear_pos.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "speech_encoder.encoder.layers.0.conv_module.batch_norm.running_var")->kind,
            TensorKind::Buffer);
  // The adapter pools with kernel-8 strided convolutions; intermediate_ffn is registered before it.
  EXPECT_EQ(find_tensor(t, "speech_encoder.adapter.layers.0.residual_conv.weight")->shape,
            Shape({2048, 1024, 8}));
  EXPECT_LT(tensor_index(t, "speech_encoder.intermediate_ffn.output_dense.bias"),
            tensor_index(t, "speech_encoder.adapter.layers.0.residual_layer_norm.weight"));
  // The vocoder reads the unit, language and speaker embeddings concatenated (1280 + 256 + 256).
  EXPECT_EQ(find_tensor(t, "vocoder.hifi_gan.conv_pre.weight")->shape, Shape({512, 1792, 7}));
  EXPECT_EQ(find_tensor(t, "vocoder.hifi_gan.resblocks.14.convs2.2.weight")->shape, Shape({16, 16, 11}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("t2u_model.model.decoder.layers.0.cross_attention.q_proj.weight").block,
            Block::SpeechOutput);
}

TEST(Seamless, M4Tv2Counts) {
  // facebook/seamless-m4t-v2-large: SeamlessM4Tv2Config's defaults.
  EXPECT_EQ(parameters_of(R"({"model_type":"seamless_m4t_v2","architectures":["SeamlessM4Tv2Model"]})"),
            2'309'249'669u);
  // Untied, transformers 5 gives both text stacks and both heads their own tables.
  EXPECT_EQ(parameters_of(R"({"model_type":"seamless_m4t_v2","tie_word_embeddings":false})"), 3'106'318'981u);
  // No speech positions, two adapter layers, a two-stage vocoder with one residual kernel.
  EXPECT_EQ(parameters_of(R"({"model_type":"seamless_m4t_v2","position_embeddings_type":null,
      "num_adapter_layers":2,"hidden_size":256,"encoder_attention_heads":4,"decoder_attention_heads":4,
      "speech_encoder_attention_heads":4,"t2u_encoder_attention_heads":4,"t2u_decoder_attention_heads":4,
      "upsample_rates":[4,4],"upsample_kernel_sizes":[8,8],"resblock_kernel_sizes":[3],
      "resblock_dilation_sizes":[[1,3]]})"),
            481'231'173u);
}

TEST(Seamless, M4Tv2TextToUnitDecoder) {
  const ModelTemplate t = template_of(R"({"model_type":"seamless_m4t_v2"})");
  const std::string d = "t2u_model.model.decoder.";
  // The decoder's own position scales come first, then unit and character embeddings, the duration predictor.
  EXPECT_EQ(tensor_index(t, d + "pos_emb_alpha_char") + 1, tensor_index(t, d + "pos_emb_alpha"));
  EXPECT_EQ(tensor_index(t, d + "pos_emb_alpha") + 1, tensor_index(t, d + "embed_tokens.weight"));
  EXPECT_EQ(find_tensor(t, d + "embed_char.weight")->shape, Shape({10943, 1024}));
  EXPECT_EQ(find_tensor(t, d + "duration_predictor.conv1.weight")->shape, Shape({256, 1024, 3}));
  EXPECT_EQ(find_tensor(t, d + "layers.5.conv2.weight")->shape, Shape({1024, 1024, 7}));
  EXPECT_EQ(find_tensor(t, d + "layers.0.cross_attention.k_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, d + "layers.0.ffn.fc1.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "t2u_model.lm_head.weight")->tied_to, d + "embed_tokens.weight");
  // v2's Conformer: Shaw's distance embedding (64 left + 8 right + 1), a LayerNorm after the depthwise conv.
  EXPECT_EQ(find_tensor(t, "speech_encoder.encoder.layers.0.self_attn.distance_embedding.weight")->shape,
            Shape({73, 64}));
  EXPECT_NE(find_tensor(t, "speech_encoder.encoder.layers.0.conv_module.depthwise_layer_norm.weight"),
            nullptr);
  EXPECT_EQ(find_tensor(t, "speech_encoder.encoder.layers.0.conv_module.batch_norm.weight"), nullptr);
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(d + "duration_predictor.proj.weight").block, Block::SpeechOutput);
}

TEST(Seamless, Refusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"seamless_m4t","conv_depthwise_kernel_size":30})").field,
            "conv_depthwise_kernel_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"seamless_m4t_v2","hidden_size":1000})").field,
            "encoder_attention_heads");
  EXPECT_EQ(refusal_of(R"({"model_type":"seamless_m4t","upsample_kernel_sizes":[11,8]})").field,
            "upsample_kernel_sizes");
  // Only the whole model is modelled; the task classes keep subsets of it.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"seamless_m4t","architectures":["SeamlessM4TForTextToSpeech"]})").field,
      "architectures");
}

}  // namespace
}  // namespace ma::test
