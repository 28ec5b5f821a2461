// Wav2Vec2-BERT (Wav2Vec2BertModel / ForCTC / ForSequenceClassification; facebook/w2v-bert-2.0): no
// convolutional feature encoder - feature_projection reads feature_projection_input_dim (160: 80 mel
// filterbanks stacked in pairs) - then Conformer layers (wav2vec2_conformer_parts.h) whose convolution module
// norms with a LayerNorm, no positional convolution and no encoder LayerNorm. With add_adapter, an optional
// feed-forward (use_intermediate_ffn_before_adapter) and adapter layers that pool by strided GLU
// convolutions and attend at output_hidden_size. Shaw's relative_key positions are the default.
#include <array>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/speech_w2v.h"
#include "model/families/wav2vec2_conformer_parts.h"

namespace ma::families {
namespace {

// Wav2Vec2BertAdapter under `p` ("adapter."): a projection to output_hidden_size when it differs, then
// num_adapter_layers layers (1 by default). Returns the width the CTC head reads.
uint64_t w2v_bert_adapter(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t hidden,
                          uint64_t ffn) {
  const uint64_t out = cfg.dim_or("output_hidden_size", hidden);
  if (out != hidden) {
    blocks::linear(t, p + "proj", hidden, out, true);
    blocks::norm(t, p + "proj_layer_norm", out, true);
  }
  for (uint64_t i = 0; i < cfg.count_or("num_adapter_layers", 1); ++i)
    conformer_adapter_layer(t, p + "layers." + std::to_string(i) + ".", out, ffn,
                            cfg.dim_or("adapter_kernel_size", 3));
  return out;
}

ConformerLayerDims w2v_bert_layer_dims(const ModelConfig& cfg, const ArchitectureRecord& a) {
  ConformerLayerDims c;
  c.hidden = a.hidden_size;
  c.heads = a.num_attention_heads;
  c.ffn = a.intermediate_size;
  c.kernel = conformer_depthwise_kernel(cfg);
  c.depthwise_layer_norm = true;
  const std::string positions = conformer_position_type(cfg, "relative_key");
  if (positions == "relative") {
    c.positions = ConformerPositions::Relative;
  } else if (positions == "relative_key") {
    c.positions = ConformerPositions::RelativeKey;
    c.distance_rows = cfg.count_or("left_max_position_embeddings", 64) +
                      cfg.count_or("right_max_position_embeddings", 8) + 1;
  } else if (!positions.empty() && positions != "rotary") {
    // Wav2Vec2BertConfig raises on any other value.
    cfg.fail("position_embeddings_type", "must be \"rotary\", \"relative\", \"relative_key\" or null");
  }  // rotary: inv_freq is a non-persistent buffer, in no state_dict
  return c;
}

constexpr std::array<std::string_view, 3> kW2vBertTasks{"Model", "ForCTC", "ForSequenceClassification"};

}  // namespace

void build_wav2vec2_bert(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Wav2Vec2BertModel");
  const std::string task = supported_task(cfg, cls, "Wav2Vec2Bert", kW2vBertTasks);
  // Wav2Vec2BertConfig's defaults (facebook/w2v-bert-2.0's sizes).
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = cfg.dim_or("hidden_size", 1024);
  a.num_layers = cfg.layers_or("num_hidden_layers", 24, 0);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 16);
  a.head_dim = split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
  a.intermediate_size = cfg.dim_or("intermediate_size", 4096);
  a.vocab_size = cfg.dim_or("vocab_size", 32);  // the record's only; the CTC head requires it below
  const uint64_t h = a.hidden_size, input = cfg.dim_or("feature_projection_input_dim", 160);
  const bool adapter = cfg.flag_or("add_adapter", false);
  const bool intermediate_ffn = cfg.flag_or("use_intermediate_ffn_before_adapter", false);
  if (intermediate_ffn && !adapter)
    cfg.fail("use_intermediate_ffn_before_adapter", "requires add_adapter (Wav2Vec2BertConfig raises)");
  if (task == "ForCTC" && !cfg.has("vocab_size"))
    cfg.fail("vocab_size", "is required by Wav2Vec2BertForCTC (Wav2Vec2BertConfig defaults it to None)");
  if (task == "ForSequenceClassification" && adapter)
    cfg.fail("add_adapter", "sequence classification does not support adapters");
  const ConformerLayerDims layer = w2v_bert_layer_dims(cfg, a);

  const std::string p = task == "Model" ? "" : "wav2vec2_bert.";
  // The model's own parameter, listed before its modules'.
  if (cfg.number_or("mask_time_prob", 0.05) > 0 || cfg.number_or("mask_feature_prob", 0) > 0)
    t.add(p + "masked_spec_embed", {h});
  blocks::norm(t, p + "feature_projection.layer_norm", input, true);
  blocks::linear(t, p + "feature_projection.projection", input, h, true);
  StackSpec& s = a.add_stack(StackRole::Encoder, p + "encoder.layers", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    wav2vec2_conformer_layer(t, s.path + "." + std::to_string(i), layer);
    s.layers.push_back(attention_dense_layer());
  }
  const uint64_t out = adapter ? w2v_bert_adapter(cfg, t, p + "adapter.", h, a.intermediate_size) : h;
  // Registered after the adapter, run before it: a ReLU feed-forward added at half weight.
  if (intermediate_ffn) wav2vec2_feed_forward(t, p + "intermediate_ffn.", h, a.intermediate_size);

  if (task == "ForCTC") {
    blocks::linear(t, "lm_head", out, a.vocab_size, true);
  } else if (task == "ForSequenceClassification") {
    if (cfg.flag_or("use_weighted_layer_sum", false)) {
      t.add("layer_weights", {a.num_layers + 1});
      t.order_modules({"layer_weights", p});  // the head's own parameter precedes the model's
    }
    const uint64_t projected = cfg.dim_or("classifier_proj_size", 768);
    blocks::linear(t, "projector", h, projected, true);
    blocks::linear(t, "classifier", projected, num_labels(cfg), true);
  }
}

}  // namespace ma::families
