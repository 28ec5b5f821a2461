// LiLT (Language-independent Layout Transformer): RoBERTa's text stream beside a narrower layout stream
// (hidden_size / channel_shrink_ratio wide) over the words' boxes. Each layer runs both: the layout stream
// has its own query, key and value, attention output, feed-forward block and LayerNorms, and the two
// streams' attention scores are summed before either softmax.
#include <string>

#include "model/blocks.h"
#include "model/families/bert_docs.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// The widths of the two streams.
struct LiltWidths {
  uint64_t text = 0, layout = 0, ffn = 0, layout_ffn = 0;
};

// LiltLayoutEmbeddings: four box tables hidden_size // 6 wide (x and y read twice, for both corners), a
// position table and a Linear from the hidden size - not 6 x (hidden_size // 6) - into the layout width.
void lilt_layout_embeddings(const ModelConfig& cfg, ModelTemplate& t, const std::string& e,
                            const TextEncoderDims& d, const LiltWidths& w) {
  const uint64_t boxes = cfg.dim_or("max_2d_position_embeddings", 1024);
  if (w.text < 6) cfg.fail("hidden_size", "must be at least 6: each box table is hidden_size // 6 wide");
  for (const char* side : {"x", "y", "h", "w"})
    blocks::embedding(t, e + side + "_position_embeddings.weight", boxes, w.text / 6);
  blocks::embedding(t, e + "box_position_embeddings.weight", d.max_positions, w.layout);
  blocks::linear(t, e + "box_linear_embeddings", w.text, w.layout, true);
  blocks::norm(t, e + "LayerNorm", w.layout, true);
}

// One LiltLayer under `p`, in the order it registers its modules.
void lilt_layer(ModelTemplate& t, const std::string& p, const LiltWidths& w) {
  const std::string self = p + ".attention.self.";
  for (const char* proj : {"query", "key", "value"}) blocks::linear(t, self + proj, w.text, w.text, true);
  for (const char* proj : {"layout_query", "layout_key", "layout_value"})
    blocks::linear(t, self + proj, w.layout, w.layout, true);
  blocks::linear(t, p + ".attention.output.dense", w.text, w.text, true);
  blocks::norm(t, p + ".attention.output.LayerNorm", w.text, true);
  blocks::linear(t, p + ".attention.layout_output.dense", w.layout, w.layout, true);
  blocks::norm(t, p + ".attention.layout_output.LayerNorm", w.layout, true);
  blocks::linear(t, p + ".intermediate.dense", w.text, w.ffn, true);
  blocks::linear(t, p + ".output.dense", w.ffn, w.text, true);
  blocks::norm(t, p + ".output.LayerNorm", w.text, true);
  blocks::linear(t, p + ".layout_intermediate.dense", w.layout, w.layout_ffn, true);
  blocks::linear(t, p + ".layout_output.dense", w.layout_ffn, w.layout, true);
  blocks::norm(t, p + ".layout_output.LayerNorm", w.layout, true);
}

}  // namespace

// LiltConfig's defaults are BERT-base's sizes with channel_shrink_ratio 4 (SCUT-DLVCLab/lilt-roberta-en-base
// sets RoBERTa's 50,265 tokens, 514 positions and one token type). Only LiltModel builds the pooler; the
// heads are RoBERTa's. Relative position embeddings (position_embedding_type relative_key /
// relative_key_query) add a distance table per layer that is not modelled: refused.
void build_lilt(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const std::string cls = architecture_of(cfg, "LiltModel");
  const std::string task = supported_task(
      cfg, cls, "Lilt",
      {"Model", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering"});
  if (cfg.string_or("position_embedding_type", "absolute") != "absolute")
    cfg.fail("position_embedding_type", "must be absolute: relative position tables are not modelled");
  const TextEncoderDims d = read_bert_dims(cfg, {});
  const uint64_t shrink = cfg.dim_or("channel_shrink_ratio", 4);
  const LiltWidths w{d.layer.hidden, d.layer.hidden / shrink, d.layer.ffn, d.layer.ffn / shrink};
  if (w.layout == 0 || w.layout_ffn == 0)
    cfg.fail("channel_shrink_ratio", "must not exceed hidden_size and intermediate_size");
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "lilt.";
  text_embeddings(t, prefix + "embeddings.", d);
  lilt_layout_embeddings(cfg, t, prefix + "layout_embeddings.", d, w);
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", w.text);
  for (uint64_t i = 0; i < d.layers; ++i) {
    lilt_layer(t, s.path + "." + std::to_string(i), w);
    s.layers.push_back(attention_dense_layer());
  }
  const uint64_t h = w.text;
  if (task == "Model") {
    blocks::linear(t, "pooler.dense", h, h, true);
  } else if (task == "ForSequenceClassification") {
    bert_docs_classification_head(t, "classifier", h, num_labels(cfg));
  } else if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else {
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
  }
}

}  // namespace ma::families
