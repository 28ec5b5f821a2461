// Splinter: BERT's encoder without a pooler, pre-trained to select recurring spans. Its question-answering
// (and pre-training) class scores spans against a [QUESTION] token's state through the QASS head: four
// dense + GELU + LayerNorm transforms (for the question's start and end, and every token's) and two
// bias-free bilinear classifiers.
#include <string>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// QuestionAwareSpanSelectionHead under `p`.
void splinter_qass(ModelTemplate& t, const std::string& p, uint64_t h) {
  for (const char* transform :
       {"query_start_transform", "query_end_transform", "start_transform", "end_transform"}) {
    blocks::linear(t, p + transform + ".dense", h, h, true);
    blocks::norm(t, p + transform + ".LayerNorm", h, true);
  }
  blocks::linear(t, p + "start_classifier", h, h, false);
  blocks::linear(t, p + "end_classifier", h, h, false);
}

}  // namespace

// SplinterConfig's defaults are BERT-base's (tau/splinter-base sets bert-base-cased's vocabulary of
// 28,996). Relative position embeddings (position_embedding_type relative_key / relative_key_query) give
// each layer a distance table this template does not model: refused.
void build_splinter(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const std::string cls = architecture_of(cfg, "SplinterModel");
  const std::string task =
      supported_task(cfg, cls, "Splinter", {"Model", "ForQuestionAnswering", "ForPreTraining"});
  if (cfg.string_or("position_embedding_type", "absolute") != "absolute")
    cfg.fail("position_embedding_type", "must be absolute: relative position tables are not modelled");
  const TextEncoderDims d = read_bert_dims(cfg, {});
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "splinter.";
  text_embeddings(t, prefix + "embeddings.", d);
  bert_docs_encoder(t, prefix, d);
  if (task != "Model") splinter_qass(t, "splinter_qass.", d.layer.hidden);
}

}  // namespace ma::families
