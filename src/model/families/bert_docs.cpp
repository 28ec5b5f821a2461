// Group bert_docs: the model_types of bert_docs.h's builders, and the layer stack, head and layout tables
// they share.
#include "model/families/bert_docs.h"

#include <array>

#include "model/blocks.h"
#include "model/families/family_groups.h"

namespace ma::families {

void bert_docs_encoder(ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d) {
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", d.layer.hidden);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, s.path + "." + std::to_string(i), bert_layer_names(), d.layer);
    s.layers.push_back(attention_dense_layer());
  }
}

void layout_box_tables(const ModelConfig& cfg, ModelTemplate& t, const std::string& e) {
  const uint64_t boxes = cfg.dim_or("max_2d_position_embeddings", 1024);
  const uint64_t coordinate = cfg.dim_or("coordinate_size", 128), shape = cfg.dim_or("shape_size", 128);
  blocks::embedding(t, e + "x_position_embeddings.weight", boxes, coordinate);
  blocks::embedding(t, e + "y_position_embeddings.weight", boxes, coordinate);
  blocks::embedding(t, e + "h_position_embeddings.weight", boxes, shape);
  blocks::embedding(t, e + "w_position_embeddings.weight", boxes, shape);
}

void layout_relative_biases(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t heads) {
  if (cfg.flag_or("has_relative_attention_bias", true))
    blocks::linear(t, p + "encoder.rel_pos_bias", cfg.dim_or("rel_pos_bins", 32), heads, false);
  if (cfg.flag_or("has_spatial_attention_bias", true)) {
    const uint64_t bins = cfg.dim_or("rel_2d_pos_bins", 64);
    blocks::linear(t, p + "encoder.rel_pos_x_bias", bins, heads, false);
    blocks::linear(t, p + "encoder.rel_pos_y_bias", bins, heads, false);
  }
}

void bert_docs_classification_head(ModelTemplate& t, const std::string& name, uint64_t hidden,
                                   uint64_t labels) {
  blocks::linear(t, name + ".dense", hidden, hidden, true);
  blocks::linear(t, name + ".out_proj", hidden, labels, true);
}

namespace {

constexpr std::array kBertDocsFamilies{
    FamilyBuilder{"layoutlmv3", build_layoutlmv3},
    FamilyBuilder{"layoutlmv2", build_layoutlmv2},
    FamilyBuilder{"layoutxlm", build_layoutlmv2},
    FamilyBuilder{"dpr", build_dpr},
    FamilyBuilder{"splinter", build_splinter},
    FamilyBuilder{"canine", build_canine},
    FamilyBuilder{"lilt", build_lilt},
    FamilyBuilder{"markuplm", build_markuplm},
    FamilyBuilder{"imagegpt", build_imagegpt},
    FamilyBuilder{"decision_transformer", build_decision_transformer},
};

}  // namespace

std::span<const FamilyBuilder> bert_docs() {
  return kBertDocsFamilies;
}

}  // namespace ma::families
