// BEiT (modeling_beit.py) in both layouts: BeitModel's body for BEiT itself (transformers 5), for
// data2vec-vision and ZoeDepth's BeitBackbone (transformers 4's, which they keep); and the relative position
// bias table of both.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// Where BEiT's layers keep their modules: transformers 4's BERT-like names (attention.attention.query ...,
// intermediate / output), which data2vec-vision and ZoeDepth's backbone keep, or transformers 5's
// (modular_beit.py: ViT's attention.q_proj ... and mlp.fc1 / fc2, stored under the old names).
enum class BeitLayout { Transformers4, Transformers5 };

// BeitModel's embeddings and encoder (no final LayerNorm) under `prefix` from a BeitConfig `cfg`, in
// `layout`: the record's dimensions and an encoder stack `prefix`encoder.layer of architecture `cls`.
// Returns the width.
uint64_t beit_encoder(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                      BeitLayout layout, ModelTemplate& t);
// BeitBackbone's modules under `prefix` (embeddings, encoder; no final LayerNorm) from a BeitConfig `cfg`,
// the record's dimensions and an encoder stack `prefix`encoder.layer of architecture `cls`. Returns the
// width.
uint64_t beit_backbone(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                       ModelTemplate& t);
// BeitRelativePositionBias under `p` ("...encoder." or "...layer.N."): over a window of patches, one bias per
// head for every offset between two patches, and three more for the class token (to it, from it, itself).
void beit_relative_position_bias(ModelTemplate& t, const std::string& p, std::pair<uint64_t, uint64_t> window,
                                 uint64_t heads);

}  // namespace ma::families
