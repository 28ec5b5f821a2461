// wav2vec 2.0-Conformer and Wav2Vec2-BERT (model/families/wav2vec2_conformer.cpp, wav2vec2_bert.cpp).
// Expected totals are sum(p.numel() for p in model.parameters()) of the transformers classes, from a torch
// reconstruction of their module trees (modular_wav2vec2_conformer.py, modular_wav2vec2_bert.py and
// modeling_wav2vec2.py's shared pieces); published sizes are named where they exist.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// facebook/wav2vec2-conformer-{rope,rel-pos}-large-960h-ft's sizes: 24 layers 1024 wide, a LayerNorm after
// every (biased) convolution, a 32-letter CTC head.
std::string w2vb_conformer_large(const std::string& positions) {
  return R"({"model_type":"wav2vec2-conformer","architectures":["Wav2Vec2ConformerForCTC"],"hidden_size":1024,
      "num_hidden_layers":24,"num_attention_heads":16,"intermediate_size":4096,"feat_extract_norm":"layer",
      "conv_bias":true,"do_stable_layer_norm":true,"vocab_size":32,"position_embeddings_type":")" +
         positions + R"("})";
}

// facebook/wav2vec2-conformer-rope-large-960h-ft is quoted as 593M: 593,376,928.
TEST(SpeechW2vB, ConformerRotaryLarge) {
  const ModelTemplate t = template_of(w2vb_conformer_large("rotary"));
  EXPECT_EQ(total_of(t), 593'376'928u);
  const std::string l = "wav2vec2_conformer.encoder.layers.23.";
  // Rotary positions add no parameter to the attention, only the encoder's persistent inv_freq buffer (one
  // entry per pair of a 64-wide head); wav2vec2's positional convolution stays.
  EXPECT_EQ(find_tensor(t, l + "self_attn.pos_bias_u"), nullptr);
  EXPECT_EQ(find_tensor(t, l + "self_attn.linear_pos.weight"), nullptr);
  const TemplateTensor* inv_freq = find_tensor(t, "wav2vec2_conformer.encoder.embed_positions.inv_freq");
  ASSERT_NE(inv_freq, nullptr);
  EXPECT_EQ(inv_freq->kind, TensorKind::Buffer);
  EXPECT_EQ(inv_freq->shape, Shape({32}));
  EXPECT_EQ(stored_name(*find_tensor(
                t, "wav2vec2_conformer.encoder.pos_conv_embed.conv.parametrizations.weight.original1")),
            "wav2vec2_conformer.encoder.pos_conv_embed.conv.weight_v");
  // The convolution module: bias-free convolutions, a BatchNorm with its running statistics.
  EXPECT_EQ(find_tensor(t, l + "conv_module.pointwise_conv1.weight")->shape, Shape({2048, 1024, 1}));
  EXPECT_EQ(find_tensor(t, l + "conv_module.depthwise_conv.weight")->shape, Shape({1024, 1, 31}));
  EXPECT_EQ(find_tensor(t, l + "conv_module.depthwise_conv.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, l + "conv_module.batch_norm.running_var")->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, l + "ffn2.output_dense.weight")->shape, Shape({1024, 4096}));
  EXPECT_EQ(t.tensors.back().name, "lm_head.bias");
  EXPECT_FALSE(t.arch.post_norm);
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(l + "ffn1.intermediate_dense.weight").block, Block::Mlp);
}

// facebook/wav2vec2-conformer-rel-pos-large-960h-ft: Transformer-XL biases and linear_pos in every
// attention, 618,591,904.
TEST(SpeechW2vB, ConformerRelativeLarge) {
  const ModelTemplate t = template_of(w2vb_conformer_large("relative"));
  EXPECT_EQ(total_of(t), 618'591'904u);
  const std::string a = "wav2vec2_conformer.encoder.layers.0.self_attn.";
  EXPECT_EQ(find_tensor(t, a + "pos_bias_v")->shape, Shape({16, 64}));
  // The attention's own biases come first, then q, k, v, out and the bias-free linear_pos.
  EXPECT_EQ(tensor_index(t, a + "pos_bias_v") + 1, tensor_index(t, a + "linear_q.weight"));
  EXPECT_EQ(tensor_index(t, a + "linear_out.bias") + 1, tensor_index(t, a + "linear_pos.weight"));
  EXPECT_EQ(find_tensor(t, a + "linear_pos.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "wav2vec2_conformer.encoder.embed_positions.inv_freq"), nullptr);
  expect_every_tensor_placed(t);
}

TEST(SpeechW2vB, ConformerDefaultsAndHeads) {
  // Wav2Vec2ConformerConfig's defaults (768 wide, 12 layers, relative positions): 179,730,304.
  EXPECT_EQ(parameters_of(R"({"model_type":"wav2vec2-conformer"})"), 179'730'304u);
  // Weighted layer sum over 4 layers, 3 labels, a 15-wide depthwise kernel, no mask vector.
  const ModelTemplate cls =
      template_of(R"({"model_type":"wav2vec2-conformer","use_weighted_layer_sum":true,"num_hidden_layers":4,
      "architectures":["Wav2Vec2ConformerForSequenceClassification"],"id2label":{"0":"a","1":"b","2":"c"},
      "classifier_proj_size":128,"mask_time_prob":0.0,"conv_depthwise_kernel_size":15})");
  EXPECT_EQ(total_of(cls), 66'170'504u);
  EXPECT_EQ(cls.tensors.front().name, "layer_weights");
  EXPECT_EQ(find_tensor(cls, "wav2vec2_conformer.masked_spec_embed"), nullptr);
  expect_every_tensor_placed(cls);
  // An explicit null position_embeddings_type: no position tensors; an adapter narrowing to 512 for the CTC
  // head.
  const ModelTemplate ctc =
      template_of(R"({"model_type":"wav2vec2-conformer","architectures":["Wav2Vec2ConformerForCTC"],
      "vocab_size":40,"add_adapter":true,"output_hidden_size":512,"num_adapter_layers":2,
      "position_embeddings_type":null,"num_hidden_layers":3})");
  EXPECT_EQ(total_of(ctc), 53'709'480u);
  EXPECT_EQ(find_tensor(ctc, "wav2vec2_conformer.encoder.layers.0.self_attn.pos_bias_u"), nullptr);
  EXPECT_EQ(find_tensor(ctc, "lm_head.weight")->shape, Shape({40, 512}));
  expect_every_tensor_placed(ctc);
}

TEST(SpeechW2vB, ConformerRefusals) {
  // Wav2Vec2ConformerConfig defaults vocab_size to None, which the CTC head refuses.
  EXPECT_EQ(
      refusal_of(R"({"model_type":"wav2vec2-conformer","architectures":["Wav2Vec2ConformerForCTC"]})").field,
      "vocab_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"wav2vec2-conformer","conv_depthwise_kernel_size":30})").field,
            "conv_depthwise_kernel_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"wav2vec2-conformer",
      "architectures":["Wav2Vec2ConformerForPreTraining"]})")
                .kind,
            ErrorKind::Unsupported);
}

// facebook/w2v-bert-2.0 (Wav2Vec2BertModel, the config class's defaults) is quoted as 580M: 580,493,120.
TEST(SpeechW2vB, Wav2Vec2BertBase) {
  const ModelTemplate t =
      template_of(R"({"model_type":"wav2vec2-bert","architectures":["Wav2Vec2BertModel"]})");
  EXPECT_EQ(total_of(t), 580'493'120u);
  // No feature encoder: feature_projection reads 160 filterbank features; no positional convolution and no
  // encoder LayerNorm.
  EXPECT_EQ(find_tensor(t, "feature_projection.projection.weight")->shape, Shape({1024, 160}));
  EXPECT_EQ(find_tensor(t, "encoder.pos_conv_embed.conv.bias"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.layer_norm.weight"), nullptr);
  EXPECT_EQ(t.tensors.front().name, "masked_spec_embed");
  // Shaw's relative_key: 64 + 8 + 1 distances per 64-wide head; a LayerNorm after the depthwise
  // convolution instead of a BatchNorm.
  const std::string l = "encoder.layers.5.";
  EXPECT_EQ(find_tensor(t, l + "self_attn.distance_embedding.weight")->shape, Shape({73, 64}));
  EXPECT_EQ(tensor_index(t, l + "self_attn.linear_out.bias") + 1,
            tensor_index(t, l + "self_attn.distance_embedding.weight"));
  EXPECT_NE(find_tensor(t, l + "conv_module.depthwise_layer_norm.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, l + "conv_module.batch_norm.weight"), nullptr);
  EXPECT_EQ(t.tensors.back().name, "encoder.layers.23.final_layer_norm.bias");
  expect_every_tensor_placed(t);
}

TEST(SpeechW2vB, Wav2Vec2BertAdapterAndHeads) {
  // The defaults with a 125-letter CTC head over one adapter layer (pooling convolutions, an attention and a
  // feed-forward at the hidden width), narrower Shaw distances: 605,751,229.
  EXPECT_EQ(parameters_of(R"({"model_type":"wav2vec2-bert","architectures":["Wav2Vec2BertForCTC"],
      "vocab_size":125,"add_adapter":true,"left_max_position_embeddings":32,
      "right_max_position_embeddings":4})"),
            605'751'229u);
  // Relative positions, the intermediate feed-forward and two adapter layers narrowing to 768.
  const ModelTemplate ctc =
      template_of(R"({"model_type":"wav2vec2-bert","architectures":["Wav2Vec2BertForCTC"],
      "vocab_size":60,"add_adapter":true,"use_intermediate_ffn_before_adapter":true,"output_hidden_size":768,
      "num_adapter_layers":2,"num_hidden_layers":4,"position_embeddings_type":"relative"})");
  EXPECT_EQ(total_of(ctc), 141'788'284u);
  const std::string a = "wav2vec2_bert.adapter.";
  EXPECT_EQ(find_tensor(ctc, a + "proj.weight")->shape, Shape({768, 1024}));
  EXPECT_EQ(find_tensor(ctc, a + "layers.1.residual_conv.weight")->shape, Shape({1536, 768, 3}));
  EXPECT_EQ(find_tensor(ctc, a + "layers.1.self_attn.linear_q.weight")->shape, Shape({768, 768}));
  EXPECT_EQ(find_tensor(ctc, a + "layers.1.self_attn.pos_bias_u"), nullptr);
  EXPECT_EQ(find_tensor(ctc, a + "layers.1.ffn.intermediate_dense.weight")->shape, Shape({4096, 768}));
  // Registered after the adapter.
  EXPECT_LT(tensor_index(ctc, a + "layers.1.ffn.output_dense.bias"),
            tensor_index(ctc, "wav2vec2_bert.intermediate_ffn.intermediate_dense.weight"));
  EXPECT_EQ(find_tensor(ctc, "lm_head.weight")->shape, Shape({60, 768}));
  expect_every_tensor_placed(ctc);
  EXPECT_EQ(place_tensor(a + "layers.0.self_attn_conv.weight").block, Block::Audio);
  // Rotary positions (inv_freq not persistent here), weighted layer sum, a 768-wide projector by default.
  const ModelTemplate cls = template_of(R"({"model_type":"wav2vec2-bert","num_hidden_layers":6,
      "architectures":["Wav2Vec2BertForSequenceClassification"],"use_weighted_layer_sum":true,
      "hidden_size":512,"num_attention_heads":8,"intermediate_size":2048,"position_embeddings_type":"rotary",
      "num_labels":7,"mask_time_prob":0})");
  EXPECT_EQ(total_of(cls), 36'833'102u);
  EXPECT_EQ(find_tensor(cls, "wav2vec2_bert.encoder.embed_positions.inv_freq"), nullptr);
  EXPECT_EQ(find_tensor(cls, "projector.weight")->shape, Shape({768, 512}));
  expect_every_tensor_placed(cls);
}

TEST(SpeechW2vB, Wav2Vec2BertRefusals) {
  EXPECT_EQ(refusal_of(R"({"model_type":"wav2vec2-bert","architectures":["Wav2Vec2BertForCTC"]})").field,
            "vocab_size");
  EXPECT_EQ(refusal_of(R"({"model_type":"wav2vec2-bert","use_intermediate_ffn_before_adapter":true})").field,
            "use_intermediate_ffn_before_adapter");
  EXPECT_EQ(refusal_of(R"({"model_type":"wav2vec2-bert","position_embeddings_type":"absolute"})").field,
            "position_embeddings_type");
  EXPECT_EQ(refusal_of(R"({"model_type":"wav2vec2-bert",
      "architectures":["Wav2Vec2BertForSequenceClassification"],"add_adapter":true})")
                .field,
            "add_adapter");
  EXPECT_EQ(refusal_of(R"({"model_type":"wav2vec2-bert","architectures":["Wav2Vec2BertForXVector"]})").kind,
            ErrorKind::Unsupported);
}

}  // namespace
}  // namespace ma::test
