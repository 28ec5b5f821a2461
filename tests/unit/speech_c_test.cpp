// The speech encoders of group speech_c (model/families/speech_c.h): SEW-D and the Audio Spectrogram
// Transformer. Expected totals are sum(p.numel() for p in model.parameters()) of the transformers classes,
// from a torch reconstruction of their module trees (modeling_sew_d.py;
// modular_audio_spectrogram_transformer.py over ViT's transformers-5 layers); published sizes are named
// where they exist.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// asapp/sew-d-tiny-100k's config.json fields that change shapes (384 wide, 12 layers of 6 heads, a
// positional convolution of 31 taps); the rest are SEWDConfig's defaults.
std::string sewd_tiny_config(const std::string& cls) {
  return R"({"model_type":"sew-d","architectures":[")" + cls + R"("],"hidden_size":384,
      "intermediate_size":1536,"num_attention_heads":6,"num_hidden_layers":12,"num_conv_pos_embeddings":31,
      "position_buckets":256,"share_att_key":true,"relative_attention":true,"pos_att_type":["p2c","c2p"],
      "norm_rel_ebd":"layer_norm","position_biased_input":false})";
}

// asapp/sew-d-tiny-100k: 24.1M parameters in its safetensors (the Hub's count); SEWDModel holds 24,115,103.
// asapp/sew-d-base-plus-400k-ft-ls100h: 177.0M; SEWDForCTC with its sizes (768 wide, 24 layers, the
// convolutions 1.5 times as wide, up to 768 channels) holds 177,003,711.
TEST(SpeechC, SewDCounts) {
  EXPECT_EQ(parameters_of(sewd_tiny_config("SEWDModel")), 24'115'103u);
  EXPECT_EQ(parameters_of(R"({"model_type":"sew-d","architectures":["SEWDForCTC"],"hidden_size":768,
      "intermediate_size":3072,"num_attention_heads":12,"num_hidden_layers":24,"num_conv_pos_embeddings":31,
      "conv_dim":[96,192,192,192,192,384,384,384,384,768,768,768,768],"vocab_size":32})"),
            177'003'711u);
  // SEWDConfig's defaults under a weighted-layer-sum classifier of 12 labels.
  EXPECT_EQ(parameters_of(R"({"model_type":"sew-d","architectures":["SEWDForSequenceClassification"],
      "use_weighted_layer_sum":true,"num_labels":12})"),
            93'789'593u);
  // DeBERTa's other options: unshared position projections, max_relative_positions instead of buckets, a
  // '|'-joined pos_att_type, no table LayerNorm, the convolution beside layer 0; biased, layer-normed
  // convolutions and a squeeze factor of 3.
  EXPECT_EQ(parameters_of(R"({"model_type":"sew-d","architectures":["SEWDForCTC"],"hidden_size":256,
      "intermediate_size":512,"num_attention_heads":4,"num_hidden_layers":3,"conv_dim":[32,64,256],
      "conv_kernel":[10,3,2],"conv_stride":[5,2,2],"conv_bias":true,"feat_extract_norm":"layer",
      "num_conv_pos_embeddings":16,"num_conv_pos_embedding_groups":4,"squeeze_factor":3,
      "position_buckets":-1,"max_relative_positions":64,"share_att_key":false,"pos_att_type":"c2p|p2c",
      "norm_rel_ebd":"none","conv_kernel_size":3,"conv_groups":2,"mask_time_prob":0.0,"vocab_size":40})"),
            2'618'776u);
}

TEST(SpeechC, SewDModules) {
  const ModelTemplate t = template_of(sewd_tiny_config("SEWDForCTC"));
  const std::string e = "sew_d.encoder.";
  // SEW's body: the mask vector first, a LayerNorm over the 512 features, a projection to 384.
  EXPECT_EQ(tensor_index(t, "sew_d.masked_spec_embed"), 0u);
  EXPECT_EQ(find_tensor(t, "sew_d.feature_projection.weight")->shape, Shape({384, 512}));
  // No encoder LayerNorm (SEW's): DeBERTa-v2's encoder one level down, its relative positions shared.
  EXPECT_EQ(find_tensor(t, e + "layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, e + "encoder.layer.0.attention.self.pos_key_proj.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, e + "encoder.layer.11.output.LayerNorm.bias")->shape, Shape({384}));
  EXPECT_EQ(find_tensor(t, e + "encoder.rel_embeddings.weight")->shape, Shape({512, 384}));  // 2 x 256
  EXPECT_EQ(tensor_index(t, e + "encoder.rel_embeddings.weight") + 1,
            tensor_index(t, e + "encoder.LayerNorm.weight"));
  EXPECT_EQ(tensor_index(t, e + "encoder.LayerNorm.bias") + 1,
            tensor_index(t, e + "upsample.projection.weight"));
  EXPECT_EQ(find_tensor(t, e + "upsample.projection.weight")->shape, Shape({768, 384}));
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, Shape({32, 384}));
  // The strided positional convolution, weight-normed: 24 channels per group of 16, 31 taps.
  const TemplateTensor* direction =
      find_tensor(t, e + "pos_conv_embed.conv.parametrizations.weight.original1");
  EXPECT_EQ(direction->shape, Shape({384, 24, 31}));
  EXPECT_EQ(stored_name(*direction), e + "pos_conv_embed.conv.weight_v");
  ASSERT_NE(t.arch.stack(StackRole::Encoder), nullptr);
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->path, e + "encoder.layer");
  EXPECT_EQ(t.arch.stack(StackRole::Encoder)->layers.size(), 12u);
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor("sew_d.feature_projection.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor(e + "encoder.layer.3.attention.self.query_proj.weight").block, Block::Attention);
}

TEST(SpeechC, SewDRefusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"sew-d","num_attention_heads":5})").field, "num_attention_heads");
  // SEWDModel has no adapter for SEWDForCTC's add_adapter to size its head by.
  EXPECT_EQ(refusal_of(R"({"model_type":"sew-d","architectures":["SEWDForCTC"],"add_adapter":true})").field,
            "add_adapter");
  EXPECT_EQ(refusal_of(R"({"model_type":"sew-d","architectures":["SEWDForPreTraining"]})").kind,
            ErrorKind::Unsupported);
}

// MIT/ast-finetuned-audioset-10-10-0.4593 (ASTConfig's defaults, 527 AudioSet labels): 86.6M parameters;
// ASTForAudioClassification holds 86,594,063.
TEST(SpeechC, AstCounts) {
  EXPECT_EQ(parameters_of(R"({"model_type":"audio-spectrogram-transformer",
      "architectures":["ASTForAudioClassification"],"num_labels":527})"),
            86'594'063u);
  // The Speech Commands checkpoints' 128 frames: 12 x 12 patches. ASTModel has no pooler parameters.
  EXPECT_EQ(parameters_of(R"({"model_type":"audio-spectrogram-transformer","architectures":["ASTModel"],
      "max_length":128})"),
            85'367'040u);
  EXPECT_EQ(parameters_of(R"({"model_type":"audio-spectrogram-transformer",
      "architectures":["ASTForAudioClassification"],"hidden_size":192,"intermediate_size":768,
      "num_attention_heads":3,"num_hidden_layers":2,"patch_size":8,"frequency_stride":4,"time_stride":6,
      "max_length":100,"num_mel_bins":64,"qkv_bias":false,"num_labels":5})"),
            949'637u);
}

TEST(SpeechC, AstModules) {
  const ModelTemplate t = template_of(R"({"model_type":"audio-spectrogram-transformer",
      "architectures":["ASTForAudioClassification"],"num_labels":527})");
  const std::string m = "audio_spectrogram_transformer.";
  // (128 - 16) / 10 + 1 = 12 frequency patches by (1024 - 16) / 10 + 1 = 101 time patches, [CLS] and the
  // distillation token: 1,214 positions. The embeddings' own parameters precede the projection.
  EXPECT_EQ(find_tensor(t, m + "embeddings.position_embeddings")->shape, Shape({1, 1214, 768}));
  EXPECT_EQ(tensor_index(t, m + "embeddings.cls_token"), 0u);
  EXPECT_EQ(tensor_index(t, m + "embeddings.distillation_token"), 1u);
  EXPECT_EQ(tensor_index(t, m + "embeddings.position_embeddings"), 2u);
  EXPECT_EQ(find_tensor(t, m + "embeddings.patch_embeddings.projection.weight")->shape,
            Shape({768, 1, 16, 16}));
  // transformers 5's ViT layers, stored under transformers 4's names.
  EXPECT_EQ(stored_name(*find_tensor(t, m + "layers.0.attention.q_proj.weight")),
            m + "encoder.layer.0.attention.attention.query.weight");
  EXPECT_EQ(stored_name(*find_tensor(t, m + "layers.11.mlp.fc2.bias")),
            m + "encoder.layer.11.output.dense.bias");
  EXPECT_EQ(find_tensor(t, "classifier.layernorm.weight")->shape, Shape({768}));
  EXPECT_EQ(find_tensor(t, "classifier.dense.weight")->shape, Shape({527, 768}));
  const StackSpec* encoder = t.arch.stack(StackRole::Encoder);
  ASSERT_NE(encoder, nullptr);
  EXPECT_EQ(encoder->mel_bins, 128u);
  EXPECT_EQ(encoder->positions, 1214u);
  EXPECT_EQ(encoder->patch_size, 16u);
  expect_every_tensor_placed(t);
}

TEST(SpeechC, AstRefusals) {
  // ASTPatchEmbeddings' kernel is (patch_size, patch_size): no [height, width] pair.
  EXPECT_EQ(refusal_of(R"({"model_type":"audio-spectrogram-transformer","patch_size":[16,16]})").field,
            "patch_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"audio-spectrogram-transformer","num_mel_bins":12})").field,
            "num_mel_bins");
  EXPECT_EQ(refusal_of(R"({"model_type":"audio-spectrogram-transformer","hidden_size":100})").field,
            "num_attention_heads");
}

}  // namespace
}  // namespace ma::test
