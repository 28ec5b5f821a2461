// The GluonTS-style encoder-decoder forecasters: Time Series Transformer, Informer and Autoformer
// (XForPrediction and XModel). Each position's input is the lagged values, the static features (a table per
// static categorical feature, the static reals, log|loc| and log(scale) of the scaler) and the time features,
// feature_size values that a bias-free Linear embeds; a fixed sinusoidal table adds positions. BART-like
// layers follow; the distribution head projects each output to the parameters of config.json's
// distribution_output, one per input_size variate. Informer attends sparsely (same projections) and distils
// the encoder with convolutions between layers; Autoformer replaces attention by auto-correlation (same
// projections) and decomposes the series, projecting each decoder layer's trend with a convolution.
#include <algorithm>
#include <string>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/timeseries.h"

namespace ma::families {
namespace {

enum class GluonVariant : uint8_t { Transformer, Informer, Autoformer };

struct GluonFamily {
  std::string_view prefix;  // class prefix: "TimeSeriesTransformer", "Informer", "Autoformer"
  GluonVariant variant;
};

// feature_size as the config classes compute it: input_size per lag, plus the static and time features and
// the scaler's two statistics per variate. A feature_size saved in config.json (as save_pretrained writes it)
// is what transformers 4 keeps (PretrainedConfig sets the remaining kwargs after __init__ computed it).
uint64_t gluon_feature_size(const ModelConfig& cfg, uint64_t input_size,
                            const std::vector<uint64_t>& embedding) {
  const json::Value* lags = cfg.raw("lags_sequence");
  if (lags && !lags->is_null() && (!lags->is_array() || lags->items().empty()))
    cfg.fail("lags_sequence", "must be a non-empty list");
  const uint64_t lag_count = lags && !lags->is_null() ? lags->items().size() : 7;  // [1, ..., 7]
  uint64_t features = input_size * 2 + cfg.count_or("num_dynamic_real_features", 0) +
                      cfg.count_or("num_time_features", 0) + cfg.count_or("num_static_real_features", 0);
  for (uint64_t e : embedding) features += e;
  return cfg.dim_or("feature_size", input_size * lag_count + features);
}

// The encoder's or the decoder's embeddings: value_embedding.value_projection (no bias) and the sinusoidal
// table, a parameter transformers fills in on load (requires_grad=False, still counted).
void gluon_embeddings(ModelTemplate& t, const std::string& stack, uint64_t features, uint64_t d,
                      uint64_t positions) {
  blocks::linear(t, stack + ".value_embedding.value_projection", features, d, false);
  blocks::embedding(t, stack + ".embed_positions.weight", positions, d).rebuilt_on_load = true;
}

void build_gluon_forecaster(const ModelConfig& cfg, ModelTemplate& t, const GluonFamily& f) {
  const std::string cls = architecture_of(cfg, std::string(f.prefix) + "Model");
  const std::string task = supported_task(cfg, cls, f.prefix, {"Model", "ForPrediction"});
  // The encoder refuses to be built without a horizon.
  if (!cfg.has("prediction_length")) cfg.fail("prediction_length", "is required (the forecast horizon)");
  const uint64_t horizon = cfg.dim("prediction_length");
  // context_length or prediction_length: null and 0 both fall back.
  const uint64_t context = cfg.count_or("context_length", 0) ? cfg.dim("context_length") : horizon;
  const uint64_t input_size = cfg.dim_or("input_size", 1);

  // Static categorical features: one table each of cardinality[i] rows, embedding_dimension[i] wide
  // (default min(50, (cardinality + 1) / 2)); without any, the config keeps [0] and the model no table.
  const uint64_t categorical = cfg.count_or("num_static_categorical_features", 0);
  std::vector<uint64_t> cardinality = categorical ? cfg.dims_or("cardinality", {}) : std::vector<uint64_t>{};
  if (categorical && cardinality.size() != categorical)
    cfg.fail("cardinality", "must list one size per static categorical feature");
  std::vector<uint64_t> embedding =
      categorical ? cfg.dims_or("embedding_dimension", {}) : std::vector<uint64_t>{};
  if (categorical && embedding.empty())
    for (uint64_t c : cardinality) embedding.push_back(std::min<uint64_t>(50, (c + 1) / 2));
  if (embedding.size() != cardinality.size())
    cfg.fail("embedding_dimension", "must list one width per static categorical feature");
  const uint64_t features = gluon_feature_size(cfg, input_size, embedding);

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  const uint64_t d = cfg.dim_or("d_model", 64);
  const StackDims enc = read_stack(cfg, "encoder", d, 2, 2, 32);
  const StackDims dec = read_stack(cfg, "decoder", d, 2, 2, 32);
  describe_main(t, dec, context + horizon);
  a.post_norm = true;
  a.position = PositionKind::Sinusoidal;
  a.activation = cfg.string_or("activation_function", "gelu");

  const std::string p = task == "Model" ? "" : "model.";
  for (size_t i = 0; i < cardinality.size(); ++i)
    blocks::embedding(t, p + "embedder.embedders." + std::to_string(i) + ".weight", cardinality[i],
                      embedding[i]);

  // Informer and Autoformer layers are BART's with other attention modules of the same projections
  // (Informer's ProbSparse attention for attention_type "prob", else BART's). Informer's layers (generated
  // from its modular file, which deletes and re-creates self_attn) register self_attn last; Autoformer's
  // final_layer_norm wraps its LayerNorm (.layernorm).
  const bool informer = f.variant == GluonVariant::Informer,
             autoformer = f.variant == GluonVariant::Autoformer;
  auto layer = [&](const std::string& l, const StackDims& s, bool cross) {
    LayerNames n = bart_layer_names(cross);
    if (autoformer) n.ffn_norm = "final_layer_norm.layernorm";
    transformer_layer(t, l, n, s.layer);
    if (informer)
      t.order_modules({l + ".self_attn_layer_norm", l + ".encoder_attn.", l + ".encoder_attn_layer_norm",
                       l + ".fc1", l + ".fc2", l + ".final_layer_norm", l + ".self_attn."});
    if (autoformer && cross) t.add(l + ".trend_projection.weight", {features, d, 3});  // Conv1d, no bias
  };

  const std::string e = p + "encoder";
  gluon_embeddings(t, e, features, d, context + horizon);
  for (uint64_t i = 0; i < enc.layers; ++i) layer(e + ".layers." + std::to_string(i), enc, false);
  blocks::norm(t, e + ".layernorm_embedding", d, true);
  // Informer's distillation: a circular Conv1d, a BatchNorm, ELU and max-pooling between layers (none after
  // the last).
  if (informer && cfg.flag_or("distil", true) && enc.layers > 1) {
    for (uint64_t i = 0; i + 1 < enc.layers; ++i) {
      const std::string c = e + ".conv_layers." + std::to_string(i);
      t.add(c + ".downConv.weight", {d, d, 3});
      t.add(c + ".downConv.bias", {d});
      time_series_batch_norm(t, c + ".norm", d);
    }
  }
  describe_stack(t, StackRole::Encoder, e + ".layers", enc, d / enc.layer.heads, context);

  const std::string dd = p + "decoder";
  gluon_embeddings(t, dd, features, d, context + horizon);
  for (uint64_t i = 0; i < dec.layers; ++i) layer(dd + ".layers." + std::to_string(i), dec, true);
  blocks::norm(t, dd + ".layernorm_embedding", d, true);
  if (autoformer) blocks::linear(t, dd + ".seasonality_projection", d, features, true);
  describe_stack(t, StackRole::Decoder, dd + ".layers", dec, d / dec.layer.heads);
  if (task == "Model") return;

  // The head predicts from the decoder's output; Autoformer's from its seasonal part plus trend, feature_size
  // wide.
  // Any other loss, null included, is refused by the class.
  if (const json::Value* loss = cfg.raw("loss"); loss && (!loss->is_string() || loss->as_string() != "nll"))
    cfg.fail("loss", "must be nll");
  distribution_projection(cfg, t, "parameter_projection", autoformer ? features : d, input_size);
}

}  // namespace

void build_time_series_transformer(const ModelConfig& cfg, ModelTemplate& t) {
  build_gluon_forecaster(cfg, t, {"TimeSeriesTransformer", GluonVariant::Transformer});
}
void build_informer(const ModelConfig& cfg, ModelTemplate& t) {
  build_gluon_forecaster(cfg, t, {"Informer", GluonVariant::Informer});
}
void build_autoformer(const ModelConfig& cfg, ModelTemplate& t) {
  build_gluon_forecaster(cfg, t, {"Autoformer", GluonVariant::Autoformer});
}

}  // namespace ma::families
