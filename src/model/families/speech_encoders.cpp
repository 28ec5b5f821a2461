// Self-supervised speech encoders: wav2vec 2.0 and HuBERT (Wav2Vec2Model / ForCTC / ForPreTraining /
// ForSequenceClassification, HubertModel / ForCTC / ForSequenceClassification). A stack of 1-D convolutions
// turns the waveform into frames (one per 320 samples), a projection widens them, a grouped convolution adds
// relative positions, and BERT-like layers (post-norm, or pre-norm with do_stable_layer_norm) encode them.
// Nothing generates: a CTC head labels each frame.
#include <array>

#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"
#include "model/families/wav2vec2_parts.h"

namespace ma::families {
namespace {

struct SpeechFamily {
  std::string_view prefix;  // class prefix: "Wav2Vec2", "Hubert"
  std::string_view base;    // attribute of the model in head classes: "wav2vec2", "hubert"
  bool hubert = false;
};

void build_speech_encoder(const ModelConfig& cfg, ModelTemplate& t, const SpeechFamily& f) {
  const std::string cls = architecture_of(cfg, std::string(f.prefix) + "Model");
  const std::string task =
      f.hubert ? supported_task(cfg, cls, f.prefix, {"Model", "ForCTC", "ForSequenceClassification"})
               : supported_task(cfg, cls, f.prefix,
                                {"Model", "ForCTC", "ForPreTraining", "ForSequenceClassification"});
  if (cfg.has("adapter_attn_dim")) unsupported(cfg, "wav2vec2 with attention adapters (adapter_attn_dim)");
  read_base_encoder_record(cfg, cls, t);
  ArchitectureRecord& a = t.arch;
  a.intermediate_size = cfg.dim_or("intermediate_size", 3072);
  a.vocab_size = cfg.dim_or("vocab_size", 32);
  a.post_norm = !cfg.flag_or("do_stable_layer_norm", false);
  const uint64_t h = a.hidden_size;
  const std::string p = task == "Model" ? "" : std::string(f.base) + ".";
  // The model's own parameter, listed before its modules'.
  if (cfg.number_or("mask_time_prob", 0.05) > 0 || cfg.number_or("mask_feature_prob", 0) > 0)
    t.add(p + "masked_spec_embed", {h});

  // The feature encoder: "group" norms the first convolution's output (a GroupNorm of one channel per
  // group), "layer" every convolution's (a LayerNorm over the channels).
  const uint64_t features = wav2vec2_feature_encoder(cfg, t, p + "feature_extractor.conv_layers");
  if (!f.hubert || cfg.flag_or("feat_proj_layer_norm", true))
    blocks::norm(t, p + "feature_projection.layer_norm", features, true);
  blocks::linear(t, p + "feature_projection.projection", features, h, true);

  // Positions: a convolution over num_conv_pos_embeddings frames in num_conv_pos_embedding_groups groups,
  // weight-normed (its magnitude g and direction v; the Hub's checkpoints keep torch's old weight_g /
  // weight_v names, which transformers 5 renames on load) or, for HuBERT with conv_pos_batch_norm, a plain
  // convolution after a BatchNorm.
  const ConvPositionDims pos_dims = conv_position_dims(cfg, h);
  const std::string pos = p + "encoder.pos_conv_embed.";
  // In registration order: the convolution, then the BatchNorm; a weight-normed convolution's own bias comes
  // before the parametrization that holds its weight (named_parameters lists a module's own first).
  if (f.hubert && cfg.flag_or("conv_pos_batch_norm", false)) {
    t.add(pos + "conv.weight", {h, h / pos_dims.groups, pos_dims.kernel});
    t.add(pos + "conv.bias", {h});
    blocks::norm(t, pos + "batch_norm", h, true);
    for (const char* b : {"running_mean", "running_var"})
      t.add(pos + "batch_norm." + b, {h}).kind = TensorKind::Buffer;
    t.add(pos + "batch_norm.num_batches_tracked", {}).kind = TensorKind::Buffer;
  } else {
    weight_normed_position_conv(t, pos + "conv", h, pos_dims);
  }
  blocks::norm(t, p + "encoder.layer_norm", h, true);

  LayerNames n;
  n.q = "attention.q_proj";
  n.k = "attention.k_proj";
  n.v = "attention.v_proj";
  n.o = "attention.out_proj";
  n.key_first = true;
  n.attn_norm = "layer_norm";
  n.fc1 = "feed_forward.intermediate_dense";
  n.fc2 = "feed_forward.output_dense";
  n.ffn_norm = "final_layer_norm";
  LayerDims d;
  d.hidden = h;
  d.heads = a.num_attention_heads;
  d.ffn = a.intermediate_size;
  StackSpec& s = a.add_stack(StackRole::Encoder, p + "encoder.layers", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    transformer_layer(t, s.path + "." + std::to_string(i), n, d);
    s.layers.push_back(attention_dense_layer());
  }

  // wav2vec2's adapter: a projection when output_hidden_size differs, then strided GLU convolutions.
  uint64_t out = h;
  if (!f.hubert && cfg.flag_or("add_adapter", false)) {
    out = cfg.dim_or("output_hidden_size", h);
    if (out != h) {
      blocks::linear(t, p + "adapter.proj", h, out, true);
      blocks::norm(t, p + "adapter.proj_layer_norm", out, true);
    }
    for (uint64_t i = 0; i < cfg.count_or("num_adapter_layers", 3); ++i) {
      const std::string c = p + "adapter.layers." + std::to_string(i) + ".conv.";
      t.add(c + "weight", {2 * out, out, cfg.dim_or("adapter_kernel_size", 3)});
      t.add(c + "bias", {2 * out});
    }
  }
  if (task == "ForCTC") {
    blocks::linear(t, "lm_head", out, a.vocab_size, true);
  } else if (task == "ForPreTraining") {  // the quantizer of the contrastive task and both projections
    const uint64_t group_count = cfg.dim_or("num_codevector_groups", 2),
                   per_group = cfg.dim_or("num_codevectors_per_group", 320),
                   codevector = cfg.dim_or("codevector_dim", 256),
                   proj = cfg.dim_or("proj_codevector_dim", 256);
    if (codevector % group_count) cfg.fail("codevector_dim", "must be a multiple of num_codevector_groups");
    t.add("quantizer.codevectors", {1, group_count * per_group, codevector / group_count});
    blocks::linear(t, "quantizer.weight_proj", features, group_count * per_group, true);
    blocks::linear(t, "project_hid", h, proj, true);
    blocks::linear(t, "project_q", codevector, proj, true);
  } else if (task == "ForSequenceClassification") {
    if (cfg.flag_or("use_weighted_layer_sum", false)) {
      t.add("layer_weights", {a.num_layers + 1});
      t.order_modules({"layer_weights", p});  // the head's own parameter precedes the model's
    }
    const uint64_t projected = cfg.dim_or("classifier_proj_size", 256);
    blocks::linear(t, "projector", h, projected, true);
    blocks::linear(t, "classifier", projected, num_labels(cfg), true);
  }
}

void build_wav2vec2(const ModelConfig& cfg, ModelTemplate& t) {
  build_speech_encoder(cfg, t, {"Wav2Vec2", "wav2vec2", false});
}
void build_hubert(const ModelConfig& cfg, ModelTemplate& t) {
  build_speech_encoder(cfg, t, {"Hubert", "hubert", true});
}

constexpr std::array kSpeechEncoderFamilies{
    FamilyBuilder{"wav2vec2", build_wav2vec2},
    FamilyBuilder{"hubert", build_hubert},
};

}  // namespace

std::span<const FamilyBuilder> speech_encoders() {
  return kSpeechEncoderFamilies;
}

}  // namespace ma::families
