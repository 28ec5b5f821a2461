// Grounding DINO (model_type grounding-dino: IDEA-Research/grounding-dino-tiny, -base) and MM Grounding DINO
// (mm-grounding-dino: openmmlab-community/mm_grounding_dino_*, LLMDet), its modular variant: a backbone from
// backbone_config (Swin by default) and a BERT text backbone feeding a Deformable DETR encoder whose layers
// also fuse image and text (grounding_dino_body.cpp), a decoder that attends to both, and per-layer box heads
// (grounding_dino.cpp). Group grounding_dino (family_groups.h).
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_grounding_dino(const ModelConfig& cfg,
                          ModelTemplate& t);  // GroundingDinoModel / GroundingDinoForObjectDetection
void build_mm_grounding_dino(const ModelConfig& cfg,
                             ModelTemplate& t);  // MMGroundingDinoModel / MMGroundingDinoForObjectDetection

// How MM Grounding DINO's model differs: its input projections never take the last map alone, its two-stage
// modules are built whatever two_stage says, and its contrastive class heads hold a learned bias.
struct GroundingDinoVariant {
  bool mm = false;
  bool detection = false;  // the ForObjectDetection class: the decoder holds its heads (set after its build)
  bool shared_boxes = true;  // bbox_embed.N tied to bbox_embed.0 (see grounding_dino.cpp)
};

// GroundingDinoModel / MMGroundingDinoModel under `prefix` ("" or "model."), with, for the detector, the
// class and box heads the detector sets on its decoder (`prefix`decoder.class_embed / bbox_embed, each box
// head stored under the detector's bbox_embed.N). Fills the record. Returns the number of decoder layers.
uint64_t grounding_dino_body(const ModelConfig& cfg, const std::string& prefix, const GroundingDinoVariant& v,
                             ModelTemplate& t);

}  // namespace ma::families
