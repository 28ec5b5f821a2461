// ESM (Meta's protein language models: ESM-1b, ESM-1v, ESM-2): RoBERTa's modules pre-normed and without
// token types. ESM-2 turns its positions by rotary embeddings (a persistent inv_freq buffer, no table),
// ESM-1b and -1v learn a table and ESM-1b normalises the embeddings too. Every class carries the base model's
// contact head, a logistic regression over all layers' attention maps, and the masked-LM decoder has no bias
// of its own: its weight alone is the word embedding.
#include "model/families/encoders_bert_relatives.h"
#include "model/families/encoders_common.h"
#include "model/families/esm_body.h"

namespace ma::families {

EsmBody read_esm_body(const ModelConfig& cfg, const EsmDefaults& defaults) {
  EsmBody b;
  TextEncoderDims& d = b.dims;
  // EsmConfig has no vocabulary default: each checkpoint gives its alphabet (33 tokens for ESM-1b and -2).
  if (defaults.vocab == 0 && !cfg.has("vocab_size"))
    cfg.fail("vocab_size", "must be given: ESM's config has no default");
  d.vocab = cfg.dim_or("vocab_size", defaults.vocab);
  d.max_positions = cfg.dim_or("max_position_embeddings", defaults.positions);
  d.layers = cfg.layers_or("num_hidden_layers", defaults.layers, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", defaults.hidden);
  d.layer.heads = cfg.dim_or("num_attention_heads", defaults.heads);
  d.layer.ffn = cfg.dim_or("intermediate_size", defaults.ffn);
  b.head_dim = split_heads(cfg, "num_attention_heads", d.layer.hidden, d.layer.heads);
  const std::string positions = cfg.string_or("position_embedding_type", defaults.position_type);
  if (positions != "absolute" && positions != "rotary")
    cfg.fail("position_embedding_type", "must be absolute or rotary, the two ESM builds");
  b.rotary = positions == "rotary";
  b.emb_norm_before = cfg.flag_or("emb_layer_norm_before", false);
  return b;
}

void esm_embeddings(ModelTemplate& t, const std::string& p, const EsmBody& b) {
  const uint64_t h = b.dims.layer.hidden;
  blocks::embedding(t, p + "embeddings.word_embeddings.weight", b.dims.vocab, h);
  if (b.emb_norm_before) blocks::norm(t, p + "embeddings.layer_norm", h, true);
  if (!b.rotary) blocks::embedding(t, p + "embeddings.position_embeddings.weight", b.dims.max_positions, h);
}

void esm_encoder(ModelTemplate& t, const std::string& p, const EsmBody& b, bool inv_freq_in_layers) {
  LayerNames names = bert_layer_names();
  names.attn_norm = "attention.LayerNorm";  // before attention
  names.ffn_norm = "LayerNorm";             // before the MLP
  const uint64_t h = b.dims.layer.hidden;
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, p + "encoder.layer", h);
  for (uint64_t i = 0; i < b.dims.layers; ++i) {
    const std::string l = encoder.path + "." + std::to_string(i);
    transformer_layer(t, l, names, b.dims.layer);
    if (b.rotary && inv_freq_in_layers) {
      t.add(l + ".attention.self.rotary_embeddings.inv_freq", {(b.head_dim + 1) / 2}).kind =
          TensorKind::Buffer;
      // Added after the layer, it moves to where EsmSelfAttention registers it: after query, key and value.
      t.order_modules({l + ".attention.self.", l + ".attention.output.", l + ".attention.LayerNorm.",
                       l + ".intermediate.", l + ".output.", l + ".LayerNorm."});
    }
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::norm(t, p + "encoder.emb_layer_norm_after", h, true);
}

void build_esm(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "EsmModel");
  const std::string task = supported_task(
      cfg, cls, "Esm", {"Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification"});
  const EsmBody b = read_esm_body(cfg, EsmDefaults{});
  const TextEncoderDims& d = b.dims;
  fill_encoder_record(t, cls, d);
  t.arch.position = b.rotary ? PositionKind::Rope : PositionKind::Learned;

  const uint64_t h = d.layer.hidden;
  const std::string p = task == "Model" ? "" : "esm.";
  esm_embeddings(t, p, b);
  if (b.rotary) {
    t.add(p + "rotary_embeddings.inv_freq", {(b.head_dim + 1) / 2}).kind = TensorKind::Buffer;
    // Checkpoints of transformers 4.2x hold the position table it then built for rotary models too, which
    // loading ignores.
    t.known_extras.push_back({p + "embeddings.position_embeddings.", "unused position table of older saves"});
  }
  esm_encoder(t, p, b, false);
  if (task == "Model") blocks::linear(t, "pooler.dense", h, h, true);
  blocks::linear(t, p + "contact_head.regression", d.layers * d.layer.heads, 1, true);
  if (task == "ForMaskedLM") {
    blocks::linear(t, "lm_head.dense", h, h, true);
    blocks::norm(t, "lm_head.layer_norm", h, true);
    tied_or_own(t, "lm_head.decoder.weight", p + "embeddings.word_embeddings.weight", read_tie(cfg, t));
    t.add("lm_head.bias", {d.vocab});
  } else if (task == "ForSequenceClassification") {
    blocks::linear(t, "classifier.dense", h, h, true);
    blocks::linear(t, "classifier.out_proj", h, num_labels(cfg), true);
  } else if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  }
}

}  // namespace ma::families
