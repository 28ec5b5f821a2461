// PatchTSMixer (PatchTSMixerModel, ForPretraining, ForPrediction, ForTimeSeriesClassification,
// ForRegression): TSMixer over patches. A Linear embeds each patch of patch_length values into d_model; each
// layer mixes across patches (an MLP over the num_patches axis, optionally beside self-attention), across
// the features (an MLP over d_model) and, in "mix_channel" mode, across channels first; every mixer is
// normed and optionally gated. Classification and regression read the scaler's statistics back in.
#include <algorithm>
#include <cctype>

#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/timeseries.h"

namespace ma::families {
namespace {

struct PatchTsMixerDims {
  uint64_t d_model = 0, expansion = 0, patches = 0, channels = 0;
  bool batch_norm = false, gated = false;
};

// PatchTSMixerNormLayer: a BatchNorm (norm_mlp names "batch") under .batchnorm, else a LayerNorm.
void patchtsmixer_norm(ModelTemplate& t, const std::string& p, const PatchTsMixerDims& m) {
  if (m.batch_norm)
    time_series_batch_norm(t, p + ".norm.batchnorm", m.d_model);
  else
    blocks::norm(t, p + ".norm", m.d_model, true);
}

// A mixer block over an axis of `width`: its norm, an MLP widening expansion_factor times, and a gate.
void patchtsmixer_mixer(ModelTemplate& t, const std::string& p, uint64_t width, const PatchTsMixerDims& m) {
  patchtsmixer_norm(t, p + ".norm", m);
  blocks::linear(t, p + ".mlp.fc1", width, width * m.expansion, true);
  blocks::linear(t, p + ".mlp.fc2", width * m.expansion, width, true);
  if (m.gated) blocks::linear(t, p + ".gating_block.attn_layer", width, width, true);
}

// InjectScalerStatistics4D (expansion 2): maps the scaler's loc and scale and appends them to every position.
void patchtsmixer_inject_scale(ModelTemplate& t, uint64_t d_model) {
  blocks::linear(t, "inject_scale.inverse_trans_expansion", d_model + 2, 2 * d_model, true);
  blocks::linear(t, "inject_scale.inverse_trans_compression", 2 * d_model, d_model, true);
  blocks::linear(t, "inject_scale.map_scale_expansion", 2, 4, true);
  blocks::linear(t, "inject_scale.map_scale_compression", 4, 2, true);
}

}  // namespace

void build_patchtsmixer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "PatchTSMixerModel");
  const std::string task = supported_task(
      cfg, cls, "PatchTSMixer",
      {"Model", "ForPretraining", "ForPrediction", "ForTimeSeriesClassification", "ForRegression"});
  // PatchTSMixerConfig's defaults.
  PatchTsMixerDims m;
  m.d_model = cfg.dim_or("d_model", 8);
  m.expansion = cfg.dim_or("expansion_factor", 2);
  m.channels = cfg.dim_or("num_input_channels", 1);
  m.gated = cfg.flag_or("gated_attn", true);
  // `"batch" in norm_mlp.lower()`: any spelling that names a batch norm.
  std::string norm = cfg.string_or("norm_mlp", "LayerNorm");
  for (char& c : norm) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  m.batch_norm = norm.find("batch") != std::string::npos;
  const uint64_t context = cfg.dim_or("context_length", 32), patch = cfg.dim_or("patch_length", 8);
  const uint64_t stride = cfg.dim_or("patch_stride", 8);
  // The config class computes num_patches; a num_patches saved in config.json (as save_pretrained writes it)
  // is what transformers 4 keeps (PretrainedConfig sets the remaining kwargs after __init__ computed it).
  m.patches = cfg.dim_or("num_patches", (std::max(context, patch) - patch) / stride + 1);
  const std::string mode = cfg.string_or("mode", "common_channel");
  const bool self_attn = cfg.flag_or("self_attn", false);

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = m.d_model;
  a.num_layers = cfg.layers_or("num_layers", 3, 0);
  a.intermediate_size = m.d_model * m.expansion;
  a.max_position_embeddings = m.patches;
  if (self_attn) {
    a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("self_attn_heads", 1);
    a.head_dim = split_heads(cfg, "self_attn_heads", m.d_model, a.num_attention_heads);
  }
  const bool positions = cfg.flag_or("use_positional_encoding", false);
  a.position = positions ? PositionKind::Learned : PositionKind::None;

  const std::string p = task == "Model" ? "" : "model.";
  const std::string e = p + "encoder.";
  blocks::linear(t, e + "patcher", patch, m.d_model, true);
  if (positions) {
    const std::string type = cfg.string_or("positional_encoding_type", "sincos");
    if (type != "sincos" && type != "random")
      cfg.fail("positional_encoding_type", "must be sincos or random");
    if (type == "sincos") a.position = PositionKind::Sinusoidal;
    // A parameter either way (the sincos table with requires_grad=False).
    t.add(e + "positional_encoder.position_enc", {m.patches, m.d_model});
  }
  StackSpec& s = a.add_stack(StackRole::Encoder, e + "mlp_mixer_encoder.mixers", m.d_model);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = s.path + "." + std::to_string(i) + ".";
    // PatchMixerBlock: norm, MLP over the patches, gate, then the optional attention and its norm.
    patchtsmixer_mixer(t, l + "patch_mixer", m.patches, m);
    if (self_attn) {
      for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
        blocks::linear(t, l + "patch_mixer.self_attn_layer." + proj, m.d_model, m.d_model, true);
      patchtsmixer_norm(t, l + "patch_mixer.norm_attn", m);
    }
    patchtsmixer_mixer(t, l + "feature_mixer", m.d_model, m);
    if (mode == "mix_channel") patchtsmixer_mixer(t, l + "channel_feature_mixer", m.channels, m);
    LayerSpec layer;
    layer.mixer = self_attn ? Mixer::Attention : Mixer::None;
    layer.ffn.gated = false;
    s.layers.push_back(layer);
  }
  if (task == "Model") return;

  const uint64_t targets = cfg.dim_or("num_targets", 3);
  const bool distribution = time_series_distribution_loss(cfg, "mse");
  // PatchTSMixerLinearHead: one position per channel (head_aggregation), or all of them with null.
  const json::Value* aggregation = cfg.raw("head_aggregation");
  const uint64_t linear_in = m.d_model * m.channels * (aggregation && aggregation->is_null() ? m.patches : 1);
  // The scaler's statistics are injected unless scaling is off ("std", "mean" or true).
  const json::Value* scaling = cfg.raw("scaling");
  const bool inject =
      !scaling || (scaling->is_bool() && scaling->as_bool()) ||
      (scaling->is_string() && (scaling->as_string() == "std" || scaling->as_string() == "mean"));
  if (task == "ForPretraining") {
    blocks::linear(t, "head.base_pt_block", m.d_model, patch, true);
  } else if (task == "ForPrediction") {
    const uint64_t in = m.patches * m.d_model, horizon = cfg.dim_or("prediction_length", 16);
    if (distribution)
      distribution_projection(cfg, t, "head.base_forecast_block", in, horizon);
    else
      blocks::linear(t, "head.base_forecast_block", in, horizon, true);
  } else if (task == "ForTimeSeriesClassification") {  // the head, then the injection
    blocks::linear(t, "head.projection", linear_in, targets, true);
    if (inject) patchtsmixer_inject_scale(t, m.d_model);
  } else {  // ForRegression: the injection, then the head
    if (inject) patchtsmixer_inject_scale(t, m.d_model);
    if (distribution)
      distribution_projection(cfg, t, "head.projection", linear_in, targets);
    else
      blocks::linear(t, "head.projection", linear_in, targets, true);
  }
}

}  // namespace ma::families
