// Group bert_docs: the model_types of bert_docs.h's builders, and the layer stack and head they share.
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
