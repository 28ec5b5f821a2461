// VisualBERT (visual_bert; uclanlp/visualbert-*): BERT whose embeddings also project region features from a
// detector (visual_embedding_dim wide) into the sequence, with its task heads.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_b.h"

namespace ma::families {
namespace {

// VisualBertEmbeddings: BERT's word, position and token-type tables and LayerNorm, then the visual token-type
// and position tables (copies of the text ones at init when special_visual_initialize, still their own
// parameters) and visual_projection.
void visual_bert_embeddings(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                            const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  text_embeddings(t, p, d);
  blocks::embedding(t, p + "visual_token_type_embeddings.weight", d.type_vocab, h);
  blocks::embedding(t, p + "visual_position_embeddings.weight", d.max_positions, h);
  blocks::linear(t, p + "visual_projection", cfg.dim_or("visual_embedding_dim", 512), h, true);
}

// VisualBertLMPredictionHead under cls.predictions (its own bias first, the transform, the decoder whose
// weight is the word embedding when tied and whose bias is always that bias), then seq_relationship.
void visual_bert_pretraining_heads(ModelTemplate& t, const TextEncoderDims& d, bool tied) {
  const uint64_t h = d.layer.hidden;
  t.add("cls.predictions.bias", {d.vocab});
  blocks::linear(t, "cls.predictions.transform.dense", h, h, true);
  blocks::norm(t, "cls.predictions.transform.LayerNorm", h, true);
  tied_or_own(t, "cls.predictions.decoder.weight", "visual_bert.embeddings.word_embeddings.weight", tied);
  t.tie("cls.predictions.decoder.bias", "cls.predictions.bias");
  blocks::linear(t, "cls.seq_relationship", h, 2, true);
}

}  // namespace

void build_visual_bert(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VisualBertModel");
  const std::string task = supported_task(
      cfg, cls, "VisualBert",
      {"Model", "ForPreTraining", "ForQuestionAnswering", "ForVisualReasoning", "ForMultipleChoice"});
  // bypass_transformer adds an additional_layer after the pooler, which no released checkpoint uses.
  if (cfg.flag_or("bypass_transformer", false)) cfg.fail("bypass_transformer", "only false is modelled");
  const TextEncoderDims d = read_bert_dims(cfg, BertDefaults{});
  const std::string p = task == "Model" ? "" : "visual_bert.";
  visual_bert_embeddings(cfg, t, p + "embeddings.", d);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, p + "encoder.layer", d.layer.hidden);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, encoder.path + "." + std::to_string(i), bert_layer_names(), d.layer);
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::linear(t, p + "pooler.dense", d.layer.hidden, d.layer.hidden, true);
  if (task == "ForPreTraining") {
    visual_bert_pretraining_heads(t, d, read_tie(cfg, t));
  } else if (task == "ForMultipleChoice") {
    blocks::linear(t, "cls", d.layer.hidden, 1, true);
  } else if (task !=
             "Model") {  // ForQuestionAnswering, ForVisualReasoning: one linear over the pooled output
    blocks::linear(t, "cls", d.layer.hidden, num_labels(cfg), true);
  }
  fill_encoder_record(t, cls, d);
}

}  // namespace ma::families
