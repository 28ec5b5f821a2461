// The vision models of group vision_e (dinat.cpp, swin2sr.cpp, hgnet_v2.cpp, textnet.cpp): each file builds
// one model family; vision_e.cpp lists their model_types.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_dinat(const ModelConfig& cfg, ModelTemplate& t);     // DiNAT (dilated neighborhood attention)
void build_swin2sr(const ModelConfig& cfg, ModelTemplate& t);   // Swin2SR (Swin V2 image super-resolution)
void build_hgnet_v2(const ModelConfig& cfg, ModelTemplate& t);  // HGNetV2 (PP-HGNetV2, D-FINE's backbone)
void build_textnet(const ModelConfig& cfg, ModelTemplate& t);   // TextNet (FAST's RepVGG-style backbone)

// HGNetV2Backbone under `prefix` (D-FINE's model.backbone.model.): the embedder and every stage, batch norms
// trainable. Returns the channels of the feature maps it hands on (embedding_size, then hidden_sizes, by
// out_features / out_indices).
std::vector<uint64_t> hgnet_v2_backbone(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t);

}  // namespace ma::families
