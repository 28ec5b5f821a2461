// wav2vec 2.0's relatives (model/families/speech_w2v.h): WavLM, data2vec-audio, UniSpeech, UniSpeech-SAT,
// SEW. Expected totals are sum(p.numel() for p in model.parameters()) of the transformers classes, from a
// torch reconstruction of their module trees (modeling_wav2vec2.py, modular_wavlm.py,
// modular_data2vec_audio.py, modular_unispeech.py, modular_unispeech_sat.py, modular_sew.py); published sizes
// are named where they exist.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// The large checkpoints' shared sizes (microsoft/wavlm-large, microsoft/unispeech-large-1500h-cv,
// microsoft/unispeech-sat-large): a LayerNorm after every convolution, biased convolutions, pre-norm layers.
std::string w2v_large_config(const std::string& type, const std::string& cls, const std::string& extra = "") {
  return R"({"model_type":")" + type + R"(","architectures":[")" + cls + R"("],"feat_extract_norm":"layer",
      "conv_bias":true,"do_stable_layer_norm":true,"hidden_size":1024,"num_hidden_layers":24,
      "num_attention_heads":16,"intermediate_size":4096)" +
         extra + "}";
}

// microsoft/wavlm-base: WavLMConfig's defaults; WavLMModel holds 94,381,936 (quoted as 94.4M).
TEST(SpeechW2v, WavLMCounts) {
  EXPECT_EQ(parameters_of(R"({"model_type":"wavlm","architectures":["WavLMModel"]})"), 94'381'936u);
  EXPECT_EQ(parameters_of(w2v_large_config("wavlm", "WavLMModel")), 315'456'704u);
  // A CTC head over an adapter narrowing to 512 (two GLU convolutions), no mask vector.
  EXPECT_EQ(parameters_of(R"({"model_type":"wavlm","architectures":["WavLMForCTC"],"vocab_size":40,
      "add_adapter":true,"output_hidden_size":512,"num_adapter_layers":2,"mask_time_prob":0})"),
            97'944'216u);
  // Weighted layer sum over 3 layers, 3 labels, 160 buckets.
  EXPECT_EQ(parameters_of(R"({"model_type":"wavlm","architectures":["WavLMForSequenceClassification"],
      "use_weighted_layer_sum":true,"id2label":{"0":"a","1":"b","2":"c"},"num_buckets":160,
      "num_hidden_layers":3})"),
            30'782'019u);
}

TEST(SpeechW2v, WavLMRelativePositionBias) {
  const ModelTemplate t = template_of(R"({"model_type":"wavlm","architectures":["WavLMForCTC"]})");
  const std::string a = "wavlm.encoder.layers.0.attention.";
  // Only layer 0 holds the bucket table; every layer gates it.
  EXPECT_EQ(find_tensor(t, a + "rel_attn_embed.weight")->shape, Shape({320, 12}));
  EXPECT_EQ(find_tensor(t, "wavlm.encoder.layers.1.attention.rel_attn_embed.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "wavlm.encoder.layers.11.attention.gru_rel_pos_const")->shape,
            Shape({1, 12, 1, 1}));
  EXPECT_EQ(find_tensor(t, a + "gru_rel_pos_linear.weight")->shape, Shape({8, 64}));
  // The attention's own parameter comes first, then k, v, q, out, the gate, the table.
  EXPECT_EQ(tensor_index(t, a + "gru_rel_pos_const") + 1, tensor_index(t, a + "k_proj.weight"));
  EXPECT_LT(tensor_index(t, a + "out_proj.bias"), tensor_index(t, a + "gru_rel_pos_linear.weight"));
  EXPECT_LT(tensor_index(t, a + "gru_rel_pos_linear.bias"), tensor_index(t, a + "rel_attn_embed.weight"));
  EXPECT_EQ(
      stored_name(*find_tensor(t, "wavlm.encoder.pos_conv_embed.conv.parametrizations.weight.original0")),
      "wavlm.encoder.pos_conv_embed.conv.weight_g");
  EXPECT_EQ(find_tensor(t, "lm_head.weight")->shape, Shape({32, 768}));
  expect_every_tensor_placed(t);
  EXPECT_EQ(place_tensor(a + "rel_attn_embed.weight").block, Block::Attention);
  EXPECT_EQ(refusal_of(R"({"model_type":"wavlm","hidden_size":768,"num_attention_heads":5})").field,
            "num_attention_heads");
}

// facebook/data2vec-audio-base-960h (quoted as 93.2M): Data2VecAudioForCTC with the config class's defaults
// holds 93,188,896. The bare model: 93,164,288.
TEST(SpeechW2v, Data2VecAudioCounts) {
  EXPECT_EQ(parameters_of(R"({"model_type":"data2vec-audio","architectures":["Data2VecAudioForCTC"]})"),
            93'188'896u);
  EXPECT_EQ(parameters_of(R"({"model_type":"data2vec-audio"})"), 93'164'288u);
  // facebook/data2vec-audio-large-960h's sizes, with an adapter keeping the width (no proj).
  EXPECT_EQ(parameters_of(R"({"model_type":"data2vec-audio","architectures":["Data2VecAudioForCTC"],
      "hidden_size":1024,"num_hidden_layers":24,"num_attention_heads":16,"intermediate_size":4096,
      "conv_bias":true,"add_adapter":true,"output_hidden_size":1024})"),
            332'193'312u);
  EXPECT_EQ(parameters_of(R"({"model_type":"data2vec-audio",
      "architectures":["Data2VecAudioForSequenceClassification"],"num_conv_pos_embeddings":3,
      "conv_pos_kernel_size":7,"num_labels":5})"),
            90'632'965u);
}

TEST(SpeechW2v, Data2VecAudioConvolutions) {
  // feat_extract_norm and do_stable_layer_norm are not Data2VecAudioConfig's: a LayerNorm after every
  // convolution and post-norm layers whatever they say.
  const ModelTemplate t = template_of(R"({"model_type":"data2vec-audio","feat_extract_norm":"group",
      "do_stable_layer_norm":true})");
  EXPECT_NE(find_tensor(t, "feature_extractor.conv_layers.6.layer_norm.weight"), nullptr);
  EXPECT_TRUE(t.arch.post_norm);
  // Five plain grouped convolutions of width 19; their LayerNorms have no parameters.
  EXPECT_EQ(find_tensor(t, "encoder.pos_conv_embed.layers.4.conv.weight")->shape, Shape({768, 48, 19}));
  EXPECT_EQ(find_tensor(t, "encoder.pos_conv_embed.layers.5.conv.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "encoder.pos_conv_embed.layers.0.layer_norm.weight"), nullptr);
  expect_every_tensor_placed(t);
  // A position embedding, not a stack of layers.
  const TensorPlacement pos = place_tensor("encoder.pos_conv_embed.layers.4.conv.weight");
  EXPECT_EQ(pos.block, Block::Embedding);
  EXPECT_FALSE(pos.layer.has_value());
  EXPECT_EQ(refusal_of(R"({"model_type":"data2vec-audio","num_conv_pos_embedding_groups":5})").field,
            "num_conv_pos_embedding_groups");
}

TEST(SpeechW2v, UniSpeechCounts) {
  EXPECT_EQ(
      parameters_of(R"({"model_type":"unispeech","architectures":["UniSpeechForCTC"],"vocab_size":50})"),
      94'410'162u);
  EXPECT_EQ(parameters_of(R"({"model_type":"unispeech","mask_time_prob":0})"), 94'370'944u);
  // microsoft/unispeech-large-1500h-cv's sizes with 768-wide codevectors: the quantizer, project_q,
  // project_hid back to the hidden width and ctc_proj to 80 classes.
  const std::string pretraining = w2v_large_config("unispeech", "UniSpeechForPreTraining",
                                                   R"(,"codevector_dim":768,"proj_codevector_dim":768)");
  EXPECT_EQ(parameters_of(pretraining), 317'472'848u);
  const ModelTemplate t = template_of(pretraining);
  EXPECT_EQ(find_tensor(t, "project_hid.weight")->shape, Shape({1024, 768}));
  EXPECT_EQ(find_tensor(t, "ctc_proj.weight")->shape, Shape({80, 1024}));
  EXPECT_EQ(find_tensor(t, "quantizer.weight_proj.weight")->shape, Shape({640, 512}));
  expect_every_tensor_placed(t);
}

TEST(SpeechW2v, UniSpeechSatCounts) {
  // microsoft/unispeech-sat-base (UniSpeechSatForPreTraining, the config class's defaults): 95,535,872.
  const std::string base = R"({"model_type":"unispeech-sat","architectures":["UniSpeechSatForPreTraining"]})";
  EXPECT_EQ(parameters_of(base), 95'535'872u);
  EXPECT_EQ(parameters_of(
                w2v_large_config("unispeech-sat", "UniSpeechSatForPreTraining",
                                 R"(,"codevector_dim":768,"proj_codevector_dim":768,"num_clusters":100)")),
            318'584'320u);
  EXPECT_EQ(parameters_of(R"({"model_type":"unispeech-sat","architectures":["UniSpeechSatForCTC"]})"),
            94'396'320u);
  EXPECT_EQ(parameters_of(R"({"model_type":"unispeech-sat",
      "architectures":["UniSpeechSatForSequenceClassification"],"use_weighted_layer_sum":true})"),
            94'569'103u);
  // UniSpeechSatModel registers its mask vector even when nothing is masked.
  const ModelTemplate bare = template_of(R"({"model_type":"unispeech-sat","mask_time_prob":0})");
  EXPECT_NE(find_tensor(bare, "masked_spec_embed"), nullptr);
  EXPECT_EQ(total_of(bare), 94'371'712u);
  // The head's own label_embeddings_concat precedes the model; the quantizer reads the hidden width.
  const ModelTemplate t = template_of(base);
  EXPECT_EQ(t.tensors.front().name, "label_embeddings_concat");
  EXPECT_EQ(t.tensors.front().shape, Shape({504, 256}));
  EXPECT_EQ(find_tensor(t, "quantizer.weight_proj.weight")->shape, Shape({640, 768}));
  EXPECT_EQ(t.tensors.back().name, "layer_norm_for_extract.bias");
  expect_every_tensor_placed(t);
  EXPECT_EQ(refusal_of(R"({"model_type":"unispeech-sat","architectures":["UniSpeechSatForPreTraining"],
      "codevector_dim":255})")
                .field,
            "codevector_dim");
  EXPECT_EQ(refusal_of(R"({"model_type":"unispeech-sat","architectures":["UniSpeechSatForXVector"]})").kind,
            ErrorKind::Unsupported);
}

// SEWConfig's defaults (13 convolutions up to 512 channels, hidden 768, squeeze_factor 2): 93,196,416.
TEST(SpeechW2v, SewCounts) {
  const ModelTemplate t = template_of(R"({"model_type":"sew","architectures":["SEWModel"]})");
  EXPECT_EQ(total_of(t), 93'196'416u);
  EXPECT_EQ(find_tensor(t, "feature_extractor.conv_layers.12.conv.weight")->shape, Shape({512, 512, 1}));
  EXPECT_EQ(find_tensor(t, "layer_norm.weight")->shape, Shape({512}));
  EXPECT_EQ(find_tensor(t, "feature_projection.weight")->shape, Shape({768, 512}));
  EXPECT_EQ(find_tensor(t, "encoder.upsample.projection.weight")->shape, Shape({1536, 768}));
  EXPECT_EQ(t.tensors.back().name, "encoder.upsample.projection.bias");
  EXPECT_TRUE(t.arch.post_norm);
  expect_every_tensor_placed(t);
  // Features already as wide as the hidden size: no feature_projection; squeeze_factor 3 widens the
  // upsampling.
  const ModelTemplate ctc =
      template_of(R"({"model_type":"sew","architectures":["SEWForCTC"],"hidden_size":512,
      "num_attention_heads":8,"intermediate_size":2048,"squeeze_factor":3,"conv_bias":true,
      "feat_extract_norm":"layer","do_stable_layer_norm":true})");
  EXPECT_EQ(total_of(ctc), 42'588'128u);
  EXPECT_EQ(find_tensor(ctc, "sew.feature_projection.weight"), nullptr);
  EXPECT_EQ(find_tensor(ctc, "sew.encoder.upsample.projection.weight")->shape, Shape({1536, 512}));
  EXPECT_TRUE(ctc.arch.post_norm);
  expect_every_tensor_placed(ctc);
  EXPECT_EQ(parameters_of(R"({"model_type":"sew","architectures":["SEWForSequenceClassification"],
      "use_weighted_layer_sum":true,"num_labels":7,"mask_time_prob":0,"conv_dim":[64,512],
      "conv_kernel":[10,3],"conv_stride":[5,2]})"),
            91'649'428u);
  EXPECT_EQ(refusal_of(R"({"model_type":"sew","conv_dim":[64,512],"conv_kernel":[10]})").field,
            "conv_kernel");
}

}  // namespace
}  // namespace ma::test
