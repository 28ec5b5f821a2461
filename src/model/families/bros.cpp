// BROS (bros; jinho8345/bros-base-uncased): BERT whose attention adds a score from the relative positions of
// the tokens' bounding boxes (sinusoids, one projection shared by every layer), with its token heads.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_b.h"

namespace ma::families {
namespace {

// BrosRelationExtractor: its dummy_node (its own parameter, first), then query and key, n_relations x hidden
// wide each.
void bros_relation_extractor(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t h) {
  const uint64_t relations = cfg.dim_or("n_relations", 1);
  t.add(p + "dummy_node", {1, h});
  blocks::linear(t, p + "query", h, relations * h, true);
  blocks::linear(t, p + "key", h, relations * h, true);
}

}  // namespace

void build_bros(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BrosModel");
  const std::string task = supported_task(
      cfg, cls, "Bros",
      {"Model", "ForTokenClassification", "SpadeEEForTokenClassification", "SpadeELForTokenClassification"});
  // BrosLayer accepts cross-attention only in a decoder, and relative_key positions add a distance table:
  // neither is used by a BROS checkpoint.
  if (cfg.flag_or("add_cross_attention", false)) cfg.fail("add_cross_attention", "only false is modelled");
  if (cfg.string_or("position_embedding_type", "absolute") != "absolute")
    cfg.fail("position_embedding_type", "only \"absolute\" is modelled");
  const TextEncoderDims d = read_bert_dims(cfg, BertDefaults{});
  const uint64_t h = d.layer.hidden;
  // BrosConfig derives the box sinusoids' width (hidden_size // 4) and the projection's (one head's width).
  if (h < 4) cfg.fail("hidden_size", "must be at least 4 (BROS' box sinusoids are hidden_size / 4 wide)");
  const std::string p = task == "Model" ? "" : "bros.";
  text_embeddings(t, p + "embeddings.", d);
  blocks::linear(t, p + "bbox_embeddings.bbox_projection", h / 4, h / d.layer.heads, false);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, p + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, encoder.path + "." + std::to_string(i), bert_layer_names(), d.layer);
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::linear(t, p + "pooler.dense", h, h, true);  // every head class builds BrosModel with its pooler
  if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (task == "SpadeEEForTokenClassification") {
    // initial_token_classifier: Dropout, Linear, Dropout, Linear.
    blocks::linear(t, "initial_token_classifier.1", h, h, true);
    blocks::linear(t, "initial_token_classifier.3", h, num_labels(cfg), true);
    bros_relation_extractor(cfg, t, "subsequent_token_classifier.", h);
  } else if (task == "SpadeELForTokenClassification") {
    bros_relation_extractor(cfg, t, "entity_linker.", h);
  }
  fill_encoder_record(t, cls, d);
}

}  // namespace ma::families
