// ALBERT, ELECTRA and RoFormer: BERT's post-LayerNorm encoder with embedding tables narrower than the layers
// (embedding_size), projected up to the hidden size. ALBERT also shares one group of layer weights across
// every layer of the stack; ELECTRA keeps BERT's layers but no pooler; RoFormer turns its positions by rotary
// embeddings instead of a learned table.
#include "model/families/encoders_bert_relatives.h"

#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// BERT's sizes read under BERT's names, with the family's defaults.
TextEncoderDims read_dims(const ModelConfig& cfg, const TextEncoderDims& dflt) {
  TextEncoderDims d;
  d.vocab = cfg.dim_or("vocab_size", dflt.vocab);
  d.max_positions = cfg.dim_or("max_position_embeddings", dflt.max_positions);
  d.type_vocab = cfg.count_or("type_vocab_size", dflt.type_vocab);
  d.embedding = cfg.dim_or("embedding_size", dflt.embedding);
  d.layers = cfg.layers_or("num_hidden_layers", dflt.layers, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", dflt.layer.hidden);
  d.layer.heads = cfg.dim_or("num_attention_heads", dflt.layer.heads);
  d.layer.ffn = cfg.dim_or("intermediate_size", dflt.layer.ffn);
  split_heads(cfg, "num_attention_heads", d.layer.hidden, d.layer.heads);
  return d;
}

TextEncoderDims sizes(uint64_t vocab, uint64_t embedding, uint64_t hidden, uint64_t layers, uint64_t heads,
                      uint64_t ffn) {
  TextEncoderDims d;
  d.vocab = vocab;
  d.max_positions = 512;
  d.type_vocab = 2;
  d.embedding = embedding;
  d.layers = layers;
  d.layer.hidden = hidden;
  d.layer.heads = heads;
  d.layer.ffn = ffn;
  return d;
}

// The masked-LM head of both: dense from the hidden size down to the embedding width, a LayerNorm there, and
// a decoder that is the word embedding (tied) with an output bias.
struct NarrowLmHead {
  std::string dense, norm, decoder;
  std::string bias;  // the output bias the decoder's .bias is tied to; empty: the decoder's own .bias
};
void narrow_lm_head(ModelTemplate& t, const NarrowLmHead& n, const std::string& word,
                    const TextEncoderDims& d, bool tied) {
  const uint64_t e = d.embedding_width();
  blocks::norm(t, n.norm, e, true);
  if (!n.bias.empty()) t.add(n.bias, {d.vocab});
  blocks::linear(t, n.dense, d.layer.hidden, e, true);
  tied_or_own(t, n.decoder + ".weight", word, tied);
  if (n.bias.empty())
    t.add(n.decoder + ".bias", {d.vocab});
  else
    tied_or_own(t, n.decoder + ".bias", n.bias, tied);
}

// ELECTRA's and RoFormer's task heads: a two-layer classifier over the first token, one linear per token,
// span logits (`qa_labels` of them) or one score per choice.
void classification_head(ModelTemplate& t, const std::string& task, uint64_t h, uint64_t labels,
                         uint64_t qa_labels) {
  if (task == "ForSequenceClassification") {
    blocks::linear(t, "classifier.dense", h, h, true);
    blocks::linear(t, "classifier.out_proj", h, labels, true);
  } else if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, labels, true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", h, qa_labels, true);
  } else if (task == "ForMultipleChoice") {
    blocks::linear(t, "classifier", h, 1, true);
  }
}

// ---- ALBERT ----

// The stack runs num_hidden_layers layers; layer i uses group i / (layers / groups), each group running its
// inner_group_num layers. Only the groups hold weights.
void albert_encoder(ModelTemplate& t, const ModelConfig& cfg, const std::string& prefix,
                    const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  const uint64_t groups = cfg.dim_or("num_hidden_groups", 1), inner = cfg.dim_or("inner_group_num", 1);
  if (d.layers && groups > d.layers)
    cfg.fail("num_hidden_groups", "must not exceed num_hidden_layers (" + std::to_string(d.layers) + ")");
  if (d.layers * inner > ModelConfig::kMaxLayers)
    cfg.fail("inner_group_num", "runs more than " + std::to_string(ModelConfig::kMaxLayers) +
                                    " layers with num_hidden_layers " + std::to_string(d.layers));
  blocks::linear(t, prefix + "encoder.embedding_hidden_mapping_in", d.embedding_width(), h, true);
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t j = 0; j < inner; ++j) {
      const std::string p = prefix + "encoder.albert_layer_groups." + std::to_string(g) + ".albert_layers." +
                            std::to_string(j) + ".";
      blocks::norm(t, p + "full_layer_layer_norm", h, true);
      for (const char* proj : {"query", "key", "value", "dense"})
        blocks::linear(t, p + "attention." + proj, h, h, true);
      blocks::norm(t, p + "attention.LayerNorm", h, true);
      blocks::linear(t, p + "ffn", h, d.layer.ffn, true);
      blocks::linear(t, p + "ffn_output", d.layer.ffn, h, true);
    }
  // What runs: num_hidden_layers x inner_group_num attention + MLP layers, on shared weights.
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.albert_layer_groups", h);
  s.layers.assign(d.layers * inner, attention_dense_layer());
  s.shared_weights = true;
}

}  // namespace

void build_albert(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const std::string cls = architecture_of(cfg, "AlbertModel");
  const std::string task =
      supported_task(cfg, cls, "Albert",
                     {"Model", "ForMaskedLM", "ForPreTraining", "ForSequenceClassification",
                      "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"});
  // AlbertConfig's defaults are ALBERT-xxlarge's sizes.
  const TextEncoderDims d = read_dims(cfg, sizes(30000, 128, 4096, 12, 64, 16384));
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "albert.";
  text_embeddings(t, prefix + "embeddings.", d);
  albert_encoder(t, cfg, prefix, d);
  const uint64_t h = d.layer.hidden;
  // The pooler is one Linear (albert.pooler, not BERT's pooler.dense); token-level heads build without it.
  if (task == "Model" || task == "ForPreTraining" || task == "ForSequenceClassification" ||
      task == "ForMultipleChoice")
    blocks::linear(t, prefix + "pooler", h, h, true);
  if (task == "ForMaskedLM" || task == "ForPreTraining")
    narrow_lm_head(t,
                   {"predictions.dense", "predictions.LayerNorm", "predictions.decoder", "predictions.bias"},
                   prefix + "embeddings.word_embeddings.weight", d, read_tie(cfg, t));
  if (task == "ForPreTraining")
    blocks::linear(t, "sop_classifier.classifier", h, num_labels(cfg), true);
  else if (task == "ForSequenceClassification" || task == "ForTokenClassification")
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  else if (task == "ForQuestionAnswering")
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
  else if (task == "ForMultipleChoice")
    blocks::linear(t, "classifier", h, 1, true);
}

// ---- ELECTRA ----

void build_electra(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const std::string cls = architecture_of(cfg, "ElectraModel");
  const std::string task =
      supported_task(cfg, cls, "Electra",
                     {"Model", "ForPreTraining", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification",
                      "ForTokenClassification", "ForQuestionAnswering"});
  // ElectraConfig's defaults are ELECTRA-small's sizes.
  const TextEncoderDims d = read_dims(cfg, sizes(30522, 128, 256, 12, 4, 1024));
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "electra.";
  const uint64_t h = d.layer.hidden;
  text_embeddings(t, prefix + "embeddings.", d);
  if (d.embedding_width() != h)
    blocks::linear(t, prefix + "embeddings_project", d.embedding_width(), h, true);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, encoder.path + "." + std::to_string(i), bert_layer_names(), d.layer);
    encoder.layers.push_back(attention_dense_layer());
  }
  if (task == "ForPreTraining") {  // the discriminator: is each token replaced?
    blocks::linear(t, "discriminator_predictions.dense", h, h, true);
    blocks::linear(t, "discriminator_predictions.dense_prediction", h, 1, true);
  } else if (task == "ForMaskedLM" || task == "ForCausalLM") {  // the generator
    narrow_lm_head(
        t, {"generator_predictions.dense", "generator_predictions.LayerNorm", "generator_lm_head", ""},
        prefix + "embeddings.word_embeddings.weight", d, read_tie(cfg, t));
  } else {
    classification_head(t, task, h, num_labels(cfg), num_labels(cfg));
  }
}

// ---- RoFormer ----

// No position table among the embeddings (word and token types, E wide, projected to the hidden size when
// narrower) and no pooler. The rotation reads a sinusoidal table of max_position_embeddings x head_dim,
// encoder.embed_positions: an embedding transformers freezes and fills at load, counted as a parameter,
// which checkpoints store but need not.
void build_roformer(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  t.arch.position = PositionKind::Rope;
  const std::string cls = architecture_of(cfg, "RoFormerModel");
  const std::string task =
      supported_task(cfg, cls, "RoFormer",
                     {"Model", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification",
                      "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"});
  // RoFormerConfig's defaults are junnyu/roformer_chinese_base's sizes; embedding_size defaults to the width.
  TextEncoderDims sized = sizes(50000, 0, 768, 12, 12, 3072);
  sized.max_positions = 1536;
  const TextEncoderDims d = read_dims(cfg, sized);
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "roformer.";
  const uint64_t h = d.layer.hidden, e = d.embedding_width();
  blocks::embedding(t, prefix + "embeddings.word_embeddings.weight", d.vocab, e);
  if (d.type_vocab) blocks::embedding(t, prefix + "embeddings.token_type_embeddings.weight", d.type_vocab, e);
  blocks::norm(t, prefix + "embeddings.LayerNorm", e, true);
  if (e != h) blocks::linear(t, prefix + "embeddings_project", e, h, true);
  blocks::embedding(t, prefix + "encoder.embed_positions.weight", d.max_positions, h / d.layer.heads)
      .rebuilt_on_load = true;
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, encoder.path + "." + std::to_string(i), bert_layer_names(), d.layer);
    encoder.layers.push_back(attention_dense_layer());
  }
  if (task == "ForMaskedLM" || task == "ForCausalLM") {
    narrow_lm_head(t,
                   {"cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm",
                    "cls.predictions.decoder", "cls.predictions.bias"},
                   prefix + "embeddings.word_embeddings.weight", d, read_tie(cfg, t));
  } else {
    classification_head(t, task, h, num_labels(cfg), 2);  // its QA class fixes two labels: start and end
  }
}

}  // namespace ma::families
