// DPR (Dense Passage Retrieval): BERT-base encoders. DPRQuestionEncoder and DPRContextEncoder each hold one
// DPREncoder - a whole BertModel (pooler included, though DPR embeds the [CLS] state and never runs it) and,
// with projection_dim > 0, encode_proj to that width. DPRReader puts one under span_predictor with two
// span logits per token and a relevance score per passage.
#include <string>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// DPREncoder under `p`; returns the width of what it outputs (projection_dim, or the hidden size).
uint64_t dpr_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                     const TextEncoderDims& d) {
  const std::string bert = p + "bert_model.";
  text_embeddings(t, bert + "embeddings.", d);
  bert_docs_encoder(t, bert, d);
  blocks::linear(t, bert + "pooler.dense", d.layer.hidden, d.layer.hidden, true);
  const uint64_t projection = cfg.count_or("projection_dim", 0);
  if (projection == 0) return d.layer.hidden;
  blocks::linear(t, p + "encode_proj", d.layer.hidden, projection, true);
  return projection;
}

}  // namespace

// DPRConfig's defaults are BERT-base's (facebook/dpr-*-single-nq-base). AutoModel builds the question
// encoder for a config.json naming no class. The Hub checkpoints store no pooler: transformers initialises
// it afresh on load (their published 108.9M is 109,482,240 less its 590,592).
void build_dpr(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const std::string cls = architecture_of(cfg, "DPRQuestionEncoder");
  const std::string kind = supported_task(cfg, cls, "DPR", {"QuestionEncoder", "ContextEncoder", "Reader"});
  const TextEncoderDims d = read_bert_dims(cfg, {});
  fill_encoder_record(t, cls, d);
  if (kind == "QuestionEncoder") {
    dpr_encoder(cfg, t, "question_encoder.", d);
  } else if (kind == "ContextEncoder") {
    dpr_encoder(cfg, t, "ctx_encoder.", d);
  } else {
    const uint64_t width = dpr_encoder(cfg, t, "span_predictor.encoder.", d);
    blocks::linear(t, "span_predictor.qa_outputs", width, 2, true);
    blocks::linear(t, "span_predictor.qa_classifier", width, 1, true);
  }
}

}  // namespace ma::families
