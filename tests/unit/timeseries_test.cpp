// The time-series forecasters (model/families/timesfm.cpp, patchtst.cpp, patchtsmixer.cpp,
// time_series_transformer.cpp): the counts of the transformers classes, the order their modules register
// tensors in, where the tensors sit, and the configs they refuse. Expected totals are TimesFM's card and the
// module-by-module reconstructions of the transformers classes in the group's verify/reconstruct.py
// (sum(p.numel() for p in model.parameters()) on the meta device), not this code's output.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "model/family_table.h"
#include "model/tensor_placement.h"
#include "template_test_support.h"

namespace ma::test {
namespace {

// google/timesfm-2.0-500m-pytorch's config.json, its shape fields.
constexpr const char* kTimesFm2 = R"({"model_type":"timesfm","architectures":["TimesFmModelForPrediction"],
    "context_length":2048,"freq_size":3,"head_dim":80,"hidden_size":1280,"horizon_length":128,
    "intermediate_size":1280,"num_attention_heads":16,"num_hidden_layers":50,"patch_length":32,
    "quantiles":[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9],"use_positional_embedding":false})";

// 498,828,960 (the card's "500M"): 50 layers of 9,842,000 (a per-dimension query scale of 80, four biased
// 1280 x 1280 projections, the ReLU MLP and its LayerNorm, the RMSNorm), the input residual block (64 -> 1280
// -> 1280, with a 64 -> 1280 residual: 1,806,080), 3 frequency rows and the horizon block (1280 -> 1280 ->
// 128 x 10: 4,919,040).
TEST(TimesFm, ReleasedModelCountsAsPublished) {
  EXPECT_EQ(parameters_of(kTimesFm2), 498'828'960u);
  const ModelTemplate t = template_of(kTimesFm2);
  EXPECT_EQ(t.arch.architecture, "TimesFmModelForPrediction");
  EXPECT_EQ(t.arch.num_layers, 50u);
  EXPECT_EQ(t.arch.head_dim, 80u);
  EXPECT_EQ(t.arch.vocab_size, 0u);
  EXPECT_EQ(t.arch.max_position_embeddings, 64u);  // 2,048 values in patches of 32
  // The attention's own scale precedes its projections; the MLP's LayerNorm follows them; the RMSNorm
  // registered last.
  EXPECT_EQ(tensor_index(t, "decoder.layers.0.self_attn.scaling") + 1,
            tensor_index(t, "decoder.layers.0.self_attn.q_proj.weight"));
  EXPECT_LT(tensor_index(t, "decoder.layers.0.mlp.layer_norm.bias"),
            tensor_index(t, "decoder.layers.0.input_layernorm.weight"));
  ASSERT_NE(find_tensor(t, "horizon_ff_layer.output_layer.weight"), nullptr);
  EXPECT_EQ(find_tensor(t, "horizon_ff_layer.output_layer.weight")->shape, (Shape{1280, 1280}));
  EXPECT_EQ(find_tensor(t, "decoder.input_ff_layer.input_layer.weight")->shape, (Shape{1280, 64}));
  EXPECT_EQ(place_tensor("decoder.input_ff_layer.output_layer.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("horizon_ff_layer.residual_layer.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("decoder.layers.3.self_attn.scaling").block, Block::Attention);
  for (const FamilyRow* row : families_for_model_type("timesfm"))
    EXPECT_EQ(model_kind_name(row->kind), "time-series");
}

// TimesFmModel alone with sinusoidal positions: their inverse timescales are a buffer, no parameter.
TEST(TimesFm, BareModelWithPositions) {
  const std::string bare =
      R"({"model_type":"timesfm","architectures":["TimesFmModel"],"hidden_size":64,"intermediate_size":96,
          "head_dim":16,"num_attention_heads":4,"num_hidden_layers":2,"patch_length":16,
          "use_positional_embedding":true})";
  EXPECT_EQ(parameters_of(bare), 70'272u);
  const ModelTemplate t = template_of(bare);
  const TemplateTensor* inv = find_tensor(t, "position_emb.inv_timescales");
  ASSERT_NE(inv, nullptr);
  EXPECT_EQ(inv->kind, TensorKind::Buffer);
  EXPECT_EQ(inv->shape, (Shape{32}));
  EXPECT_EQ(find_tensor(t, "horizon_ff_layer.input_layer.weight"), nullptr);
  EXPECT_EQ(place_tensor("position_emb.inv_timescales").block, Block::Buffer);
}

// namctin/patchtst_etth1_pretrain's shape: 7 channels, 512 values in 42 patches of 12, a [CLS] position.
constexpr const char* kPatchTstPretrain =
    R"({"model_type":"patchtst","architectures":["PatchTSTForPretraining"],
    "num_input_channels":7,"context_length":512,"patch_length":12,"patch_stride":12,"d_model":128,
    "num_attention_heads":16,"num_hidden_layers":3,"ffn_dim":512,"use_cls_token":true,"norm_type":"batchnorm"})";

// ibm-granite/granite-timeseries-patchtst's shape: a 96-step forecast from all 42 positions flattened.
constexpr const char* kPatchTstForecast =
    R"({"model_type":"patchtst","architectures":["PatchTSTForPrediction"],
    "num_input_channels":7,"context_length":512,"patch_length":12,"patch_stride":12,"d_model":128,
    "num_attention_heads":16,"num_hidden_layers":3,"ffn_dim":256,"prediction_length":96,"pooling_type":null})";

TEST(PatchTst, CountsOfEachHead) {
  EXPECT_EQ(parameters_of(kPatchTstPretrain), 603'660u);
  EXPECT_EQ(parameters_of(kPatchTstForecast), 920'672u);  // head: 5,376 x 96 + 96
  // One embedding per channel, LayerNorms, attention across channels too (a second norm), learned positions.
  EXPECT_EQ(parameters_of(R"({"model_type":"patchtst","architectures":["PatchTSTForClassification"],
      "num_input_channels":3,"context_length":64,"patch_length":8,"patch_stride":4,"d_model":32,
      "num_attention_heads":4,"num_hidden_layers":2,"ffn_dim":64,"share_embedding":false,"norm_type":"layernorm",
      "channel_attention":true,"positional_encoding_type":"random","num_targets":5})"),
            19'045u);
  // A normal distribution's head: two projections of the 6 x 64 pooled features.
  EXPECT_EQ(parameters_of(R"({"model_type":"patchtst","architectures":["PatchTSTForRegression"],
      "num_input_channels":6,"context_length":512,"patch_length":12,"patch_stride":12,"d_model":64,
      "num_attention_heads":4,"num_hidden_layers":2,"ffn_dim":128,"num_targets":2,"loss":"nll",
      "distribution_output":"normal"})"),
            72'004u);
  // A Student-t head per channel.
  EXPECT_EQ(parameters_of(R"({"model_type":"patchtst","architectures":["PatchTSTForPrediction"],
      "num_input_channels":3,"context_length":96,"patch_length":16,"patch_stride":8,"d_model":32,
      "num_attention_heads":4,"num_hidden_layers":2,"ffn_dim":64,"prediction_length":24,"share_projection":false,
      "loss":"nll","distribution_output":"student_t","pooling_type":null})"),
            94'232u);
}

TEST(PatchTst, LayersAndTheirPlaces) {
  const ModelTemplate t = template_of(kPatchTstPretrain);
  // The [CLS] token, then the position table (43 rows: 42 patches and [CLS]), a parameter even when fixed.
  EXPECT_EQ(tensor_index(t, "model.encoder.positional_encoder.cls_token") + 1,
            tensor_index(t, "model.encoder.positional_encoder.position_enc"));
  EXPECT_EQ(find_tensor(t, "model.encoder.positional_encoder.position_enc")->shape, (Shape{43, 128}));
  // Attention as wav2vec2 registers it: k, v, q, out.
  EXPECT_LT(tensor_index(t, "model.encoder.layers.0.self_attn.k_proj.weight"),
            tensor_index(t, "model.encoder.layers.0.self_attn.q_proj.weight"));
  const TemplateTensor* stat = find_tensor(t, "model.encoder.layers.2.norm_sublayer3.batchnorm.running_var");
  ASSERT_NE(stat, nullptr);
  EXPECT_EQ(stat->kind, TensorKind::Buffer);
  EXPECT_EQ(find_tensor(t, "head.linear.weight")->shape, (Shape{12, 128}));
  EXPECT_EQ(place_tensor("model.encoder.positional_encoder.position_enc").block, Block::Embedding);
  EXPECT_EQ(place_tensor("model.encoder.embedder.input_embedding.4.weight").block, Block::Embedding);
  EXPECT_FALSE(place_tensor("model.encoder.embedder.input_embedding.4.weight").layer);
  EXPECT_EQ(place_tensor("head.projections.2.proj.1.weight").block, Block::LmHead);
  const TensorPlacement ff = place_tensor("model.encoder.layers.1.ff.3.weight");
  EXPECT_EQ(ff.block, Block::Mlp);
  EXPECT_EQ(ff.layer, 1u);
}

// ibm-granite/granite-timeseries-patchtsmixer's shape: 7 channels, 64 patches of 8, 8 gated mixer layers.
constexpr const char* kPatchTsMixerForecast = R"({"model_type":"patchtsmixer",
    "architectures":["PatchTSMixerForPrediction"],"context_length":512,"patch_length":8,"patch_stride":8,
    "num_input_channels":7,"d_model":16,"expansion_factor":2,"num_layers":8,"mode":"common_channel",
    "gated_attn":true,"norm_mlp":"LayerNorm","self_attn":false,"prediction_length":96,"num_patches":64})";

TEST(PatchTsMixer, CountsOfEachHead) {
  EXPECT_EQ(parameters_of(kPatchTsMixerForecast), 275'696u);
  EXPECT_EQ(parameters_of(R"({"model_type":"patchtsmixer","architectures":["PatchTSMixerForPretraining"],
      "context_length":512,"patch_length":16,"patch_stride":8,"num_input_channels":7,"d_model":32,"num_layers":4,
      "scaling":null})"),
            102'964u);
  // Negative-binomial regression: the scaler's statistics injected, then two projections.
  EXPECT_EQ(parameters_of(R"({"model_type":"patchtsmixer","architectures":["PatchTSMixerForRegression"],
      "context_length":64,"patch_length":8,"patch_stride":4,"num_input_channels":5,"d_model":24,"num_layers":3,
      "loss":"nll","distribution_output":"negative_binomial","num_targets":2})"),
            15'965u);
}

// Channel mixing, BatchNorms, attention beside the patch MLP, positions, and a head over every position.
TEST(PatchTsMixer, ClassifierRegistersItsHeadBeforeTheInjection) {
  const std::string classify = R"({"model_type":"patchtsmixer",
      "architectures":["PatchTSMixerForTimeSeriesClassification"],"context_length":64,"patch_length":8,
      "patch_stride":8,"num_input_channels":3,"d_model":16,"num_layers":2,"mode":"mix_channel",
      "norm_mlp":"BatchNorm","self_attn":true,"self_attn_heads":2,"use_positional_encoding":true,"num_targets":4,
      "head_aggregation":null})";
  EXPECT_EQ(parameters_of(classify), 8'908u);
  const ModelTemplate t = template_of(classify);
  EXPECT_LT(tensor_index(t, "head.projection.weight"),
            tensor_index(t, "inject_scale.inverse_trans_expansion.weight"));
  EXPECT_EQ(find_tensor(t, "head.projection.weight")->shape, (Shape{4, 16 * 3 * 8}));
  const std::string mixer = "model.encoder.mlp_mixer_encoder.mixers.1.";
  EXPECT_EQ(find_tensor(t, mixer + "patch_mixer.mlp.fc1.weight")->shape,
            (Shape{16, 8}));  // over the 8 patches
  EXPECT_EQ(find_tensor(t, mixer + "channel_feature_mixer.gating_block.attn_layer.weight")->shape,
            (Shape{3, 3}));
  ASSERT_NE(find_tensor(t, mixer + "patch_mixer.norm_attn.norm.batchnorm.num_batches_tracked"), nullptr);
  EXPECT_EQ(place_tensor(mixer + "patch_mixer.self_attn_layer.out_proj.weight").block, Block::Attention);
  EXPECT_EQ(place_tensor(mixer + "feature_mixer.gating_block.attn_layer.bias").block, Block::Mlp);
  EXPECT_EQ(place_tensor("model.encoder.patcher.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("inject_scale.map_scale_expansion.weight").block, Block::LmHead);
}

// The tourism-monthly checkpoints' shape (the Hugging Face blog's setup): a 24-month horizon from 48 months,
// 16 lags, 2 time features, one static categorical feature of 366 series embedded in 2, 4 + 4 layers 32 wide.
std::string tourism(const std::string& model_type, const std::string& cls) {
  return R"({"model_type":")" + model_type + R"(","architectures":[")" + cls +
         R"("],"prediction_length":24,"context_length":48,"input_size":1,
      "lags_sequence":[1,2,3,4,5,6,7,11,12,13,23,24,25,35,36,37],"num_time_features":2,
      "num_static_categorical_features":1,"cardinality":[366],"embedding_dimension":[2],"encoder_layers":4,
      "decoder_layers":4,"d_model":32,"distribution_output":"student_t"})";
}

TEST(GluonForecasters, TourismMonthlyCounts) {
  EXPECT_EQ(parameters_of(tourism("time_series_transformer", "TimeSeriesTransformerForPrediction")), 75'839u);
  EXPECT_EQ(parameters_of(tourism("informer", "InformerForPrediction")), 85'343u);  // + 3 distilling convs
  EXPECT_EQ(parameters_of(tourism("autoformer", "AutoformerForPrediction")), 84'983u);
  // TimeSeriesTransformerConfig's defaults (64 wide, 2 + 2 layers), two categorical features embedded in
  // min(50, (cardinality + 1) / 2) = 5 and 50.
  EXPECT_EQ(parameters_of(R"({"model_type":"time_series_transformer",
      "architectures":["TimeSeriesTransformerForPrediction"],"prediction_length":7,"input_size":2,
      "distribution_output":"negative_binomial","num_static_categorical_features":2,"cardinality":[10,200]})"),
            139'590u);
  EXPECT_EQ(
      parameters_of(R"({"model_type":"informer","architectures":["InformerModel"],"prediction_length":12,
      "input_size":3,"num_static_real_features":2,"num_dynamic_real_features":1,"encoder_layers":3,
      "decoder_layers":1,"d_model":48,"encoder_attention_heads":4,"decoder_attention_heads":3})"),
      80'000u);
}

TEST(GluonForecasters, LayoutOfEachVariant) {
  const ModelTemplate tst =
      template_of(tourism("time_series_transformer", "TimeSeriesTransformerForPrediction"));
  // feature_size: 16 lags + 2 (embedding) + 2 (time) + 2 (log|loc|, log scale) = 22.
  EXPECT_EQ(find_tensor(tst, "model.encoder.value_embedding.value_projection.weight")->shape,
            (Shape{32, 22}));
  const TemplateTensor* positions = find_tensor(tst, "model.decoder.embed_positions.weight");
  ASSERT_NE(positions, nullptr);
  EXPECT_EQ(positions->shape, (Shape{72, 32}));
  EXPECT_TRUE(positions->rebuilt_on_load);
  EXPECT_EQ(find_tensor(tst, "parameter_projection.proj.2.weight")->shape, (Shape{1, 32}));

  // Informer's layers register self_attn last (its modular class deletes and re-creates it).
  const ModelTemplate informer = template_of(tourism("informer", "InformerForPrediction"));
  EXPECT_LT(tensor_index(informer, "model.decoder.layers.1.final_layer_norm.bias"),
            tensor_index(informer, "model.decoder.layers.1.self_attn.k_proj.weight"));
  EXPECT_EQ(find_tensor(informer, "model.encoder.conv_layers.3.downConv.weight"),
            nullptr);  // none after the last
  EXPECT_EQ(find_tensor(informer, "model.encoder.conv_layers.2.downConv.weight")->shape, (Shape{32, 32, 3}));

  // Autoformer: the trend's Conv1d per decoder layer, the seasonal output back to the features, and the head
  // reading feature_size values.
  const ModelTemplate autoformer = template_of(tourism("autoformer", "AutoformerForPrediction"));
  EXPECT_EQ(find_tensor(autoformer, "model.decoder.layers.0.trend_projection.weight")->shape,
            (Shape{22, 32, 3}));
  ASSERT_NE(find_tensor(autoformer, "model.encoder.layers.0.final_layer_norm.layernorm.weight"), nullptr);
  EXPECT_EQ(find_tensor(autoformer, "parameter_projection.proj.0.weight")->shape, (Shape{1, 22}));

  EXPECT_EQ(place_tensor("model.encoder.value_embedding.value_projection.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("model.embedder.embedders.0.weight").block, Block::Embedding);
  EXPECT_FALSE(place_tensor("parameter_projection.proj.1.weight").layer);
  EXPECT_EQ(place_tensor("parameter_projection.proj.1.weight").block, Block::LmHead);
  EXPECT_EQ(place_tensor("model.encoder.conv_layers.0.downConv.weight").block, Block::Embedding);
  EXPECT_EQ(place_tensor("model.decoder.layers.2.trend_projection.weight").block, Block::Mlp);
  EXPECT_EQ(place_tensor("model.decoder.seasonality_projection.weight").block, Block::LmHead);
}

TEST(TimeSeriesRefusals, FieldsTransformersNeeds) {
  // The encoders raise without a horizon.
  EXPECT_EQ(refusal_of(R"({"model_type":"time_series_transformer"})").field, "prediction_length");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"informer","prediction_length":4,"architectures":["InformerForPrediction"],
      "distribution_output":"gamma"})")
          .field,
      "distribution_output");
  EXPECT_EQ(refusal_of(R"({"model_type":"autoformer","prediction_length":4,
      "architectures":["AutoformerForPrediction"],"loss":"mse"})")
                .field,
            "loss");
  EXPECT_EQ(refusal_of(R"({"model_type":"time_series_transformer","prediction_length":4,
      "num_static_categorical_features":2,"cardinality":[3]})")
                .field,
            "cardinality");
  // PatchTSTPatchify refuses a context no longer than one patch.
  EXPECT_EQ(refusal_of(R"({"model_type":"patchtst","context_length":8,"patch_length":8})").field,
            "context_length");
  EXPECT_EQ(
      refusal_of(R"({"model_type":"timesfm","architectures":["TimesFmModelForPrediction"],"quantiles":0.5})")
          .field,
      "quantiles");
  const Refusal r =
      refusal_of(R"({"model_type":"patchtsmixer","architectures":["PatchTSMixerForForecasting"]})");
  EXPECT_EQ(r.kind, ErrorKind::Unsupported);
  EXPECT_EQ(r.field, "architectures");
}

}  // namespace
}  // namespace ma::test
