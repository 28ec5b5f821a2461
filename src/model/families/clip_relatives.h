// Group clip_relatives: CLIP's and SigLIP's towers published alone (CLIPVisionModel, CLIPTextModel, ...) and
// the models built from CLIP's towers with another text encoder (Chinese-CLIP, AltCLIP) or with detection or
// segmentation heads (OWL-ViT, OWLv2, CLIPSeg). Each file builds its model_types; clip_relatives.cpp lists
// them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// clip_towers.cpp: a tower's config.json is the tower config itself, at top level.
void build_clip_vision_model(const ModelConfig& cfg, ModelTemplate& t);     // CLIPVisionModel[WithProjection]
void build_clip_text_model(const ModelConfig& cfg, ModelTemplate& t);       // CLIPTextModel[WithProjection]
void build_siglip_vision_model(const ModelConfig& cfg, ModelTemplate& t);   // SiglipVisionModel
void build_siglip_text_model(const ModelConfig& cfg, ModelTemplate& t);     // SiglipTextModel
void build_siglip2_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // Siglip2VisionModel (NaFlex)
// chinese_clip.cpp
void build_chinese_clip(const ModelConfig& cfg, ModelTemplate& t);               // ChineseCLIPModel
void build_chinese_clip_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // ChineseCLIPVisionModel
// owlvit.cpp
void build_owlvit(const ModelConfig& cfg, ModelTemplate& t);  // OwlViTModel, OwlViTForObjectDetection
void build_owlv2(const ModelConfig& cfg, ModelTemplate& t);   // Owlv2Model, Owlv2ForObjectDetection
// clipseg.cpp
void build_clipseg(const ModelConfig& cfg, ModelTemplate& t);  // CLIPSegModel, CLIPSegForImageSegmentation
// altclip.cpp
void build_altclip(const ModelConfig& cfg, ModelTemplate& t);  // AltCLIPModel

}  // namespace ma::families
