// MarkupLM: BERT's layers over the text of web pages, each token's embedding adding an XPath embedding of
// the DOM node it sits in: per depth (max_depth of them) a tag table and a subscript table
// (xpath_unit_hidden_size wide), concatenated, then an MLP (xpath_unitseq2_inner, inner2emb) to the hidden
// size.
#include <string>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// XPathEmbeddings, in the order it registers them. xpath_unitseq2_embeddings is built but never used.
void markuplm_xpath_embeddings(const ModelConfig& cfg, ModelTemplate& t, const std::string& x, uint64_t h) {
  const uint64_t depth = cfg.layers_or("max_depth", 50), unit = cfg.dim_or("xpath_unit_hidden_size", 32);
  const uint64_t tags = cfg.dim_or("max_xpath_tag_unit_embeddings", 256),
                 subs = cfg.dim_or("max_xpath_subs_unit_embeddings", 1024);
  blocks::linear(t, x + "xpath_unitseq2_embeddings", unit * depth, h, true);
  blocks::linear(t, x + "xpath_unitseq2_inner", unit * depth, 4 * h, true);
  blocks::linear(t, x + "inner2emb", 4 * h, h, true);
  for (uint64_t i = 0; i < depth; ++i)
    blocks::embedding(t, x + "xpath_tag_sub_embeddings." + std::to_string(i) + ".weight", tags, unit);
  for (uint64_t i = 0; i < depth; ++i)
    blocks::embedding(t, x + "xpath_subs_sub_embeddings." + std::to_string(i) + ".weight", subs, unit);
}

}  // namespace

// MarkupLMConfig's defaults are BERT-base's sizes (microsoft/markuplm-base sets RoBERTa's 50,267 tokens, 514
// positions and one token type). The Hub checkpoints name MarkupLMForPretraining, a class transformers does
// not have: AutoModel builds MarkupLMModel for them, and so does this template. Only the base model and the
// sequence classifier build the pooler. Relative position embeddings and cross-attention are not modelled:
// refused.
void build_markuplm(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  std::string cls = architecture_of(cfg, "MarkupLMModel");
  if (cls == "MarkupLMForPretraining") cls = "MarkupLMModel";
  const std::string task = supported_task(
      cfg, cls, "MarkupLM",
      {"Model", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering"});
  if (cfg.string_or("position_embedding_type", "absolute") != "absolute")
    cfg.fail("position_embedding_type", "must be absolute: relative position tables are not modelled");
  if (cfg.flag_or("add_cross_attention", false))
    cfg.fail("add_cross_attention", "cross-attention layers are not modelled for MarkupLM");
  const TextEncoderDims d = read_bert_dims(cfg, {});
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "markuplm.";
  const std::string e = prefix + "embeddings.";
  const uint64_t h = d.layer.hidden;
  // BERT's tables, the XPath embeddings between the positions and the token types.
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  markuplm_xpath_embeddings(cfg, t, e + "xpath_embeddings.", h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
  bert_docs_encoder(t, prefix, d);
  if (task == "Model" || task == "ForSequenceClassification")
    blocks::linear(t, prefix + "pooler.dense", h, h, true);
  if (task == "ForSequenceClassification" || task == "ForTokenClassification")
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  else if (task == "ForQuestionAnswering")
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
}

}  // namespace ma::families
