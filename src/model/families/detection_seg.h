// Builders of the detection, pose and matting models built on plain ViTs (group detection_seg,
// family_groups.h): ViTDet (vitdet.cpp), the ViTPose backbone and ViTPose (vitpose.cpp), and ViTMatte
// (vitmatte.cpp), whose backbone is a ViTDet; MGP-STR (mgp_str.cpp), a scene-text recognizer on a ViT.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_vitdet(const ModelConfig& cfg, ModelTemplate& t);            // VitDetModel / VitDetBackbone
void build_vitpose_backbone(const ModelConfig& cfg, ModelTemplate& t);  // VitPoseBackbone
void build_vitpose(const ModelConfig& cfg, ModelTemplate& t);           // VitPoseForPoseEstimation
void build_vitmatte(const ModelConfig& cfg, ModelTemplate& t);          // VitMatteForImageMatting
void build_mgp_str(const ModelConfig& cfg, ModelTemplate& t);  // MgpstrModel / MgpstrForSceneTextRecognition

// VitDetModel's (and VitDetBackbone's) embeddings and encoder under `prefix`, the record filled for `cls`:
// what VitMatte's load_backbone builds under "backbone.". Returns the width.
uint64_t vitdet_body(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                     ModelTemplate& t);

}  // namespace ma::families
