// LayoutLMv3: RoBERTa's layers over a document's words (with their boxes on the page) and its image's
// patches, one sequence. The text embeddings are RoBERTa's plus four box tables whose outputs are
// concatenated (x and y coordinate_size wide, height and width shape_size wide), not added as LayoutLM
// v1's; the patches are ViT's (a strided conv, a [CLS] token, learned positions). Relative position biases,
// 1-D over positions and 2-D over the boxes, are tables of one score per head shared by every layer.
#include <string>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// LayoutLMv3TextEmbeddings, in the order it registers them: RoBERTa's (positions after the LayerNorm), then
// the box tables.
void layoutlmv3_text_embeddings(const ModelConfig& cfg, ModelTemplate& t, const std::string& e,
                                const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  layout_box_tables(cfg, t, e);
}

// LayoutLMv3Model. Its own parameters (cls_token, pos_embed) come first in state_dict, then its modules:
// the text embeddings (text_embed), the patch embedding and the two LayerNorms of the visual path
// (visual_embed), the layers and the bias tables after them. pos_embed has int(input_size / patch_size)^2
// + 1 rows: patch_size must be one int there (the class divides by it), though the conv accepts a pair.
void layoutlmv3_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                      const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  const bool visual = cfg.flag_or("visual_embed", true);
  if (visual) {
    const uint64_t side = cfg.dim_or("input_size", 224) / cfg.dim_or("patch_size", 16);
    t.add(p + "cls_token", {1, 1, h});
    t.add(p + "pos_embed", {1, side * side + 1, h});
  }
  if (cfg.flag_or("text_embed", true)) layoutlmv3_text_embeddings(cfg, t, p + "embeddings.", d);
  if (visual) {
    blocks::conv2d(t, p + "patch_embed.proj", cfg.dim_or("num_channels", 3), h, cfg.dim_or("patch_size", 16));
    blocks::norm(t, p + "LayerNorm", h, true);
    blocks::norm(t, p + "norm", h, true);
  }
  bert_docs_encoder(t, p, d);
  layout_relative_biases(cfg, t, p, d.layer.heads);
}

}  // namespace

// The token classifier is one Linear for fewer than ten labels and the two-layer head from ten on; the
// question-answering head is that two-layer head with num_labels outputs (2 by default), not a forced pair.
// LayoutLMv3Config's defaults are microsoft/layoutlmv3-base's sizes (its config.json sets
// max_position_embeddings 514 and type_vocab_size 1). That checkpoint's published 125.9M is this model's
// 125,326,976 plus one 768 x 768 Linear with its bias (590,592): the pooler of the original (unilm) model,
// which transformers' class does not build.
void build_layoutlmv3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const std::string cls = architecture_of(cfg, "LayoutLMv3Model");
  const std::string task = supported_task(
      cfg, cls, "LayoutLMv3",
      {"Model", "ForTokenClassification", "ForQuestionAnswering", "ForSequenceClassification"});
  const TextEncoderDims d = read_bert_dims(cfg, {.vocab = 50265});
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "layoutlmv3.";
  layoutlmv3_model(cfg, t, prefix, d);
  for (const char* pooler : {"pooler.", "layoutlmv3.pooler."})
    t.known_extras.push_back({pooler, "the original LayoutLMv3's pooler, which transformers does not build"});
  const uint64_t h = d.layer.hidden, labels = num_labels(cfg);
  if (task == "ForTokenClassification" && labels < 10)
    blocks::linear(t, "classifier", h, labels, true);
  else if (task == "ForTokenClassification" || task == "ForSequenceClassification")
    bert_docs_classification_head(t, "classifier", h, labels);
  else if (task == "ForQuestionAnswering")
    bert_docs_classification_head(t, "qa_outputs", h, labels);
}

}  // namespace ma::families
