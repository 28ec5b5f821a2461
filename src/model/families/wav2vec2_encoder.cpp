#include "model/families/wav2vec2_encoder.h"

#include "model/blocks.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// Positions: a convolution over num_conv_pos_embeddings frames in num_conv_pos_embedding_groups groups,
// weight-normed (its magnitude g and direction v; the Hub's checkpoints keep torch's old weight_g / weight_v
// names, which transformers 5 renames on load) or, for HuBERT with conv_pos_batch_norm, a plain convolution
// after a BatchNorm. In registration order: the convolution, then the BatchNorm; a weight-normed
// convolution's own bias comes before the parametrization that holds its weight (named_parameters lists a
// module's own first).
void wav2vec2_positions(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder, uint64_t h,
                        bool batch_norm) {
  const ConvPositionDims pos_dims = conv_position_dims(cfg, h);
  const std::string pos = encoder + "pos_conv_embed.";
  if (batch_norm && cfg.flag_or("conv_pos_batch_norm", false)) {
    t.add(pos + "conv.weight", {h, h / pos_dims.groups, pos_dims.kernel});
    t.add(pos + "conv.bias", {h});
    blocks::norm(t, pos + "batch_norm", h, true);
    for (const char* b : {"running_mean", "running_var"})
      t.add(pos + "batch_norm." + b, {h}).kind = TensorKind::Buffer;
    t.add(pos + "batch_norm.num_batches_tracked", {}).kind = TensorKind::Buffer;
  } else {
    weight_normed_position_conv(t, pos + "conv", h, pos_dims);
  }
}

// Wav2Vec2Adapter: a projection when output_hidden_size differs, then strided GLU convolutions. Returns the
// width the CTC head reads.
uint64_t wav2vec2_adapter(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t h) {
  const uint64_t out = cfg.dim_or("output_hidden_size", h);
  if (out != h) {
    blocks::linear(t, p + "adapter.proj", h, out, true);
    blocks::norm(t, p + "adapter.proj_layer_norm", out, true);
  }
  for (uint64_t i = 0; i < cfg.count_or("num_adapter_layers", 3); ++i) {
    const std::string c = p + "adapter.layers." + std::to_string(i) + ".conv.";
    t.add(c + "weight", {2 * out, out, cfg.dim_or("adapter_kernel_size", 3)});
    t.add(c + "bias", {2 * out});
  }
  return out;
}

}  // namespace

void wav2vec2_encoder_layer(ModelTemplate& t, const std::string& layer, const LayerDims& d) {
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
  transformer_layer(t, layer, n, d);
}

void gumbel_vector_quantizer(const ModelConfig& cfg, ModelTemplate& t, uint64_t input) {
  const uint64_t group_count = cfg.dim_or("num_codevector_groups", 2),
                 per_group = cfg.dim_or("num_codevectors_per_group", 320),
                 codevector = cfg.dim_or("codevector_dim", 256);
  if (codevector % group_count) cfg.fail("codevector_dim", "must be a multiple of num_codevector_groups");
  t.add("quantizer.codevectors", {1, group_count * per_group, codevector / group_count});
  blocks::linear(t, "quantizer.weight_proj", input, group_count * per_group, true);
}

void build_wav2vec2_like(const ModelConfig& cfg, ModelTemplate& t, const Wav2Vec2Flavour& f) {
  const std::string cls = architecture_of(cfg, std::string(f.prefix) + "Model");
  const std::string task = supported_task(cfg, cls, f.prefix, f.tasks);
  if (cfg.has("adapter_attn_dim")) unsupported(cfg, "wav2vec2 with attention adapters (adapter_attn_dim)");
  read_base_encoder_record(cfg, cls, t);
  ArchitectureRecord& a = t.arch;
  a.intermediate_size = cfg.dim_or("intermediate_size", 3072);
  a.vocab_size = cfg.dim_or("vocab_size", 32);
  a.post_norm = !f.stable_layer_norm || !cfg.flag_or("do_stable_layer_norm", false);
  const uint64_t h = a.hidden_size;
  const std::string p = task == "Model" ? "" : std::string(f.base) + ".";
  // The model's own parameter, listed before its modules'.
  if (f.masked_spec_embed_always || cfg.number_or("mask_time_prob", 0.05) > 0 ||
      cfg.number_or("mask_feature_prob", 0) > 0)
    t.add(p + "masked_spec_embed", {h});

  // The feature encoder: "group" norms the first convolution's output (a GroupNorm of one channel per
  // group), "layer" every convolution's (a LayerNorm over the channels).
  const uint64_t features =
      wav2vec2_feature_encoder(cfg, t, p + "feature_extractor.conv_layers", f.every_conv_normed,
                               f.conv_defaults ? *f.conv_defaults : wav2vec2_conv_defaults());
  if (f.projection) {
    f.projection(t, p, features, h);
  } else {
    if (!f.projection_norm_optional || cfg.flag_or("feat_proj_layer_norm", true))
      blocks::norm(t, p + "feature_projection.layer_norm", features, true);
    blocks::linear(t, p + "feature_projection.projection", features, h, true);
  }

  const std::string encoder = p + "encoder.";
  if (f.positions)
    f.positions(cfg, t, encoder, h);
  else
    wav2vec2_positions(cfg, t, encoder, h, f.batch_norm_positions);
  if (f.transformer) {
    f.transformer(cfg, t, encoder, h);
  } else {
    blocks::norm(t, encoder + "layer_norm", h, true);
    LayerDims d;
    d.hidden = h;
    d.heads = a.num_attention_heads;
    d.ffn = a.intermediate_size;
    StackSpec& s = a.add_stack(StackRole::Encoder, encoder + "layers", h);
    for (uint64_t i = 0; i < a.num_layers; ++i) {
      const std::string layer = s.path + "." + std::to_string(i);
      if (f.layer)
        f.layer(cfg, t, layer, d, i);
      else
        wav2vec2_encoder_layer(t, layer, d);
      s.layers.push_back(attention_dense_layer());
    }
  }
  if (f.after_layers) f.after_layers(cfg, t, encoder, h);

  const bool adapter = f.adapter && cfg.flag_or("add_adapter", false);
  const uint64_t out = adapter ? wav2vec2_adapter(cfg, t, p, h) : h;
  if (task == "ForCTC") {
    blocks::linear(t, "lm_head", out, a.vocab_size, true);
  } else if (task == "ForPreTraining") {
    f.pretraining(cfg, t, {features, h});
  } else if (task == "ForSequenceClassification") {
    // Wav2Vec2ForSequenceClassification raises on add_adapter.
    if (adapter) cfg.fail("add_adapter", "sequence classification does not support adapters");
    if (cfg.flag_or("use_weighted_layer_sum", false)) {
      t.add("layer_weights", {a.num_layers + 1});
      t.order_modules({"layer_weights", p});  // the head's own parameter precedes the model's
    }
    const uint64_t projected = cfg.dim_or("classifier_proj_size", 256);
    blocks::linear(t, "projector", h, projected, true);
    blocks::linear(t, "classifier", projected, num_labels(cfg), true);
  }
}

}  // namespace ma::families
