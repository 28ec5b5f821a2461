// PatchTST (PatchTSTModel, ForPretraining, ForPrediction, ForClassification, ForRegression): a Transformer
// encoder over patches of each channel of a multivariate series. Every channel is cut into patches of
// patch_length values every patch_stride; a Linear embeds a patch (one per channel unless share_embedding), a
// table of positions is added, and encoder layers (BatchNorm or LayerNorm, optionally a second attention
// across channels) follow. The heads read one position (pooled or the [CLS] one) or all of them flattened.
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/timeseries.h"

namespace ma::families {
namespace {

// PatchTSTEncoderLayer's "Add & Norm": a BatchNorm over the model width (under .batchnorm) or a LayerNorm.
void patchtst_norm(ModelTemplate& t, const std::string& p, uint64_t d_model, bool batch_norm) {
  if (batch_norm)
    time_series_batch_norm(t, p + ".batchnorm", d_model);
  else
    blocks::norm(t, p, d_model, true);
}

}  // namespace

void build_patchtst(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "PatchTSTModel");
  const std::string task =
      supported_task(cfg, cls, "PatchTST",
                     {"Model", "ForPretraining", "ForPrediction", "ForClassification", "ForRegression"});
  // PatchTSTConfig's defaults (its class, not a checkpoint: the released ones set their own).
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = cfg.dim_or("d_model", 128);
  a.num_layers = cfg.layers_or("num_hidden_layers", 3, 0);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 4);
  a.head_dim = split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
  a.intermediate_size = cfg.dim_or("ffn_dim", 512);
  a.post_norm = !cfg.flag_or("pre_norm", true);
  const uint64_t d = a.hidden_size, channels = cfg.dim_or("num_input_channels", 1);

  // PatchTSTPatchify: the patches that fit in context_length, the last one ending at its end.
  const uint64_t context = cfg.dim_or("context_length", 32), patch = cfg.dim_or("patch_length", 1);
  const uint64_t stride = cfg.dim_or("patch_stride", 1);
  if (context <= patch)
    cfg.fail("context_length", "must exceed patch_length (" + std::to_string(patch) + ")");
  const uint64_t patches = (context - patch) / stride + 1;
  const bool cls_token = cfg.flag_or("use_cls_token", false);
  a.max_position_embeddings = patches + (cls_token ? 1 : 0);
  const std::string norm_type = cfg.string_or("norm_type", "batchnorm");
  if (norm_type != "batchnorm" && norm_type != "layernorm")
    cfg.fail("norm_type", "must be batchnorm or layernorm");
  const bool batch_norm = norm_type == "batchnorm";
  const std::string positions = cfg.string_or("positional_encoding_type", "sincos");
  if (positions != "sincos" && positions != "random")
    cfg.fail("positional_encoding_type", "must be sincos or random");
  a.position = positions == "sincos" ? PositionKind::Sinusoidal : PositionKind::Learned;

  const std::string p = task == "Model" ? "" : "model.";
  const std::string e = p + "encoder.";
  if (cfg.flag_or("share_embedding", true)) {
    blocks::linear(t, e + "embedder.input_embedding", patch, d, true);
  } else {
    for (uint64_t c = 0; c < channels; ++c)
      blocks::linear(t, e + "embedder.input_embedding." + std::to_string(c), patch, d, true);
  }
  if (cls_token) t.add(e + "positional_encoder.cls_token", {1, 1, 1, d});
  // A parameter even when fixed: the sincos table is an nn.Parameter with requires_grad=False.
  t.add(e + "positional_encoder.position_enc", {a.max_position_embeddings, d});

  const bool bias = cfg.flag_or("bias", true), channel_attention = cfg.flag_or("channel_attention", false);
  LayerNames n;
  StackSpec& s = a.add_stack(StackRole::Encoder, e + "layers", d);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = s.path + "." + std::to_string(i) + ".";
    // PatchTSTAttention (wav2vec2's copy) registers k, v, q, out; all biased whatever `bias` says.
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      blocks::linear(t, l + "self_attn." + proj, d, d, true);
    patchtst_norm(t, l + "norm_sublayer1", d, batch_norm);
    // With channel_attention the same self_attn also runs across channels, normed by its own sublayer.
    if (channel_attention) patchtst_norm(t, l + "norm_sublayer2", d, batch_norm);
    blocks::linear(t, l + "ff.0", d, a.intermediate_size, bias);
    blocks::linear(t, l + "ff.3", a.intermediate_size, d, bias);
    patchtst_norm(t, l + "norm_sublayer3", d, batch_norm);
    LayerSpec layer = attention_dense_layer();
    layer.ffn.gated = false;
    s.layers.push_back(layer);
  }
  if (task == "Model") return;

  // PatchTSTConfig: pooling_type "mean"; null in config.json pools nothing.
  const json::Value* pooling = cfg.raw("pooling_type");
  const bool pooled = cls_token || !pooling || (pooling->is_string() && !pooling->as_string().empty());
  if (task == "ForPretraining") {
    blocks::linear(t, "head.linear", d, patch, true);  // each position back to its patch's values
  } else if (task == "ForClassification") {
    blocks::linear(t, "head.linear", channels * d, cfg.dim_or("num_targets", 1), true);
  } else if (task == "ForRegression") {
    const uint64_t in = channels * d, targets = cfg.dim_or("num_targets", 1);
    if (time_series_distribution_loss(cfg, "mse"))
      distribution_projection(cfg, t, "head.projection", in, targets);
    else
      blocks::linear(t, "head.projection", in, targets, true);
  } else {  // ForPrediction: per channel or shared, from one pooled position or all positions flattened
    const uint64_t in = pooled ? d : d * patches, horizon = cfg.dim_or("prediction_length", 24);
    const bool distribution = time_series_distribution_loss(cfg, "mse");
    auto projection = [&](const std::string& name) {
      if (distribution)
        distribution_projection(cfg, t, name, in, horizon);
      else
        blocks::linear(t, name, in, horizon, true);
    };
    if (cfg.flag_or("share_projection", true)) {
      projection("head.projection");
    } else {
      for (uint64_t c = 0; c < channels; ++c) projection("head.projections." + std::to_string(c));
    }
  }
}

}  // namespace ma::families
