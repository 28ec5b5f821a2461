// Builders of the segmentation heads over a nested backbone (group seg_heads, family_groups.h): MaskFormer's
// Swin (swin.cpp, beside Swin), MaskFormer (maskformer.cpp: a backbone, an FPN pixel decoder and DETR's
// decoder) and UperNet (upernet.cpp: a ConvNeXt, Swin or ResNet backbone under a PSP + FPN head and an FCN
// auxiliary head). seg_backbones.cpp builds the backbones AutoBackbone makes from their backbone_config.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_maskformer_swin(const ModelConfig& cfg, ModelTemplate& t);  // MaskFormerSwinModel / ...Backbone
void build_maskformer(const ModelConfig& cfg, ModelTemplate& t);  // MaskFormerModel / ForInstanceSegmentation
void build_upernet(const ModelConfig& cfg, ModelTemplate& t);     // UperNetForSemanticSegmentation

// BackboneMixin's choice of the stages a backbone hands on, as indices into its stage names ("stem" 0, then
// "stage1".. "stage`stages - 1`"): out_features by name, else out_indices, else the last stage.
std::vector<size_t> backbone_out_stages(const ModelConfig& bb, size_t stages);

// Which Swin backbone: SwinBackbone (transformers 5's Swin layers, a LayerNorm per stage handed on),
// MaskFormerSwinBackbone (MaskFormerSwinModel under model., a LayerNorm per stage), or the latter as
// MaskFormer makes it from a swin backbone_config (out_features forced to stage1..stage4).
enum class SwinBackboneKind { Swin, MaskFormer, MaskFormerFromSwin };
// That backbone under `prefix`, built from `bb`. Returns the channels of the feature maps it hands on.
// Lives in swin.cpp.
std::vector<uint64_t> swin_backbone(const ModelConfig& bb, const std::string& prefix, SwinBackboneKind kind,
                                    ModelTemplate& t);
// ConvNextBackbone / ConvNextV2Backbone (model_type convnext / convnextv2) under `prefix`: ConvNextModel's
// embeddings and encoder, a channels-first LayerNorm per stage handed on. Returns their channels. Lives in
// convnext.cpp.
std::vector<uint64_t> convnext_backbone(const ModelConfig& bb, const std::string& prefix, ModelTemplate& t);

// The backbone AutoBackbone.from_config builds from the composite's backbone_config (`dflt` when absent),
// under `prefix`: ResNetBackbone (trainable batch norms), ConvNextBackbone, ConvNextV2Backbone, SwinBackbone
// or MaskFormerSwinBackbone. `maskformer`: MaskFormer's pixel level module, which turns a swin
// backbone_config into a MaskFormerSwinConfig first. Returns the channels of the feature maps it hands on.
std::vector<uint64_t> seg_backbone(const ModelConfig& cfg, const char* dflt, const std::string& prefix,
                                   bool maskformer, ModelTemplate& t);

}  // namespace ma::families
