// TimesFM (TimesFmModel, TimesFmModelForPrediction): a decoder-only forecaster over patches of a time series.
// Each patch of patch_length values and its padding mask go through a residual MLP block into the model
// width, a frequency embedding is added, and causal layers (RMSNorm, attention with a learned per-dimension
// query scale, a LayerNorm-first ReLU MLP) follow; ForPrediction's residual block maps every position to
// horizon_length values for the mean and each quantile. No vocabulary: nothing is tokenised.
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/timeseries.h"

namespace ma::families {
namespace {

// TimesFmResidualBlock: input_layer (in -> hidden), SiLU, output_layer (hidden -> out), plus a linear
// residual_layer (in -> out), all biased.
void timesfm_residual_block(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden,
                            uint64_t out) {
  blocks::linear(t, p + "input_layer", in, hidden, true);
  blocks::linear(t, p + "output_layer", hidden, out, true);
  blocks::linear(t, p + "residual_layer", in, out, true);
}

}  // namespace

void build_timesfm(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "TimesFmModel");
  const std::string task = supported_task(cfg, cls, "TimesFm", {"Model", "ModelForPrediction"});
  // TimesFmConfig's defaults are TimesFM 2.0-500m's shape (google/timesfm-2.0-500m-pytorch).
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = cfg.dim_or("hidden_size", 1280);
  a.intermediate_size = cfg.dim_or("intermediate_size", 1280);
  a.num_layers = cfg.layers_or("num_hidden_layers", 50, 0);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 16);
  // head_dim is its own field: the projections are heads x head_dim wide, whatever hidden_size is.
  a.head_dim = cfg.dim_or("head_dim", 80);
  const uint64_t h = a.hidden_size, inter = a.intermediate_size, width = a.num_attention_heads * a.head_dim;
  const uint64_t patch = cfg.dim_or("patch_length", 32);
  const uint64_t context = cfg.dim_or("context_length", 512);
  a.max_position_embeddings = context / patch;  // positions are patches
  a.position = cfg.flag_or("use_positional_embedding", false) ? PositionKind::Sinusoidal : PositionKind::None;

  const std::string p = task == "Model" ? "" : "decoder.";
  // The patch and its padding indicator, concatenated: 2 x patch_length inputs.
  timesfm_residual_block(t, p + "input_ff_layer.", 2 * patch, inter, h);
  blocks::embedding(t, p + "freq_emb.weight", cfg.dim_or("freq_size", 3), h);
  StackSpec& s = a.add_stack(StackRole::Decoder, p + "layers", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = s.path + "." + std::to_string(i) + ".";
    // The attention's own parameter (softplus-scaled per head dimension) precedes its projections.
    t.add(l + "self_attn.scaling", {a.head_dim});
    for (const char* proj : {"q_proj", "k_proj", "v_proj"})
      blocks::linear(t, l + "self_attn." + proj, h, width, true);
    blocks::linear(t, l + "self_attn.o_proj", width, h, true);
    blocks::linear(t, l + "mlp.gate_proj", h, inter, true);
    blocks::linear(t, l + "mlp.down_proj", inter, h, true);
    blocks::norm(t, l + "mlp.layer_norm", h, true);
    blocks::norm(t, l + "input_layernorm", h, false);
    LayerSpec layer = attention_dense_layer();
    layer.ffn.gated = false;
    s.layers.push_back(layer);
  }
  // The sinusoids' inverse timescales, a persistent buffer of hidden_size / 2.
  if (a.position == PositionKind::Sinusoidal && h >= 2)
    t.add(p + "position_emb.inv_timescales", {h / 2}).kind = TensorKind::Buffer;
  if (task == "Model") return;

  // The mean and each quantile, horizon_length values each, at every position.
  const json::Value* quantiles = cfg.raw("quantiles");
  if (quantiles && !quantiles->is_array()) cfg.fail("quantiles", "must be a list");
  const uint64_t outputs = 1 + (quantiles ? quantiles->items().size() : 9);
  timesfm_residual_block(t, "horizon_ff_layer.", h, inter, cfg.dim_or("horizon_length", 128) * outputs);
}

}  // namespace ma::families
