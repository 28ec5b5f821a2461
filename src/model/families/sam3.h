// Builders of Meta's SAM 3 (group segment_anything_3, family_groups.h): Sam3Model (sam3_model.cpp), its image
// encoder Sam3VisionModel and that encoder's backbone Sam3ViTModel (sam3_vision.cpp), its SAM-2-style
// trackers (sam3_tracker.cpp) and the detector-plus-tracker Sam3VideoModel (sam3_video.cpp). The detector's
// heads (geometry encoder, DETR encoder and decoder, mask decoder, dot-product scoring) are
// sam3_detector.cpp's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_sam3(const ModelConfig& cfg, ModelTemplate& t);               // Sam3Model
void build_sam3_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // Sam3VisionModel
void build_sam3_vit_model(const ModelConfig& cfg, ModelTemplate& t);     // Sam3ViTModel
// SAM 3's tracker (sam3_tracker.cpp) and its video model (sam3_video.cpp).
void build_sam3_tracker(const ModelConfig& cfg, ModelTemplate& t);        // Sam3TrackerModel
void build_sam3_tracker_video(const ModelConfig& cfg, ModelTemplate& t);  // Sam3TrackerVideoModel
void build_sam3_video(const ModelConfig& cfg, ModelTemplate& t);          // Sam3VideoModel
// SAM 3 LiteText (sam3_lite_text.cpp): Sam3Model with a MobileCLIP text encoder, and that encoder alone.
void build_sam3_lite_text(const ModelConfig& cfg, ModelTemplate& t);             // Sam3LiteTextModel
void build_sam3_lite_text_text_model(const ModelConfig& cfg, ModelTemplate& t);  // Sam3LiteTextTextModel
// SAM 3.1's multiplex video tracker (sam3_1_video.cpp).
void build_sam3_1_video(const ModelConfig& cfg, ModelTemplate& t);  // Sam3_1VideoModel

// Sam3Model's modules with their in-memory names, without build_sam3's on-disk prefix (sam3_model.cpp).
void sam3_model_modules(const ModelConfig& cfg, ModelTemplate& t);
// Sam3TrackerVideoModel built with remove_vision_encoder=True, as Sam3VideoModel builds its tracker_model
// (sam3_tracker.cpp).
void sam3_tracker_video_without_vision(const ModelConfig& cfg, ModelTemplate& t);

// Sam3ViTModel under `p` from its config `b` (Sam3ViTConfig): a learned position table over the pretraining
// grid, a bias-free patch convolution, a LayerNorm before the layers, then layers of rotary attention (most
// of them inside windows) and an MLP. Records it as a vision stack; returns its width.
uint64_t sam3_vit(const ModelConfig& b, const std::string& p, ModelTemplate& t);
// Sam3VisionModel under `p` from its config `v` (Sam3VisionConfig): the backbone, then one FPN level per
// scale factor. Returns the neck's width, fpn_hidden_size.
uint64_t sam3_vision(const ModelConfig& v, const std::string& p, ModelTemplate& t);

// Sam3VisionNeck under `p` from its config `v` (Sam3VisionConfig): one FPN level per scale factor over the
// backbone's channels. Returns its width, fpn_hidden_size.
uint64_t sam3_vision_neck(const ModelConfig& v, const std::string& p, ModelTemplate& t);
// A Sam3VisionConfig's scale_factors (its default [4.0, 2.0, 1.0, 0.5] when absent or null).
std::vector<double> sam3_scale_factors(const ModelConfig& v);
// Sam3FPNLayers under `p`.0., `p`.1., ... for `scales`, over the channels of `v`'s backbone_config (a
// Sam3VisionConfig `v`) to its fpn_hidden_size: the levels of sam3_vision_neck and of SAM 3.1's three necks.
void sam3_fpn_levels(const ModelConfig& v, const std::vector<double>& scales, const std::string& p,
                     ModelTemplate& t);
// A Sam3ViTConfig's hidden_size (its default, 1,024, is SAM 3's).
uint64_t sam3_vit_width(const ModelConfig& b);

// The detector's modules after the text projection, in Sam3Model's order (sam3_detector.cpp):
// geometry_encoder, detr_encoder, detr_decoder, mask_decoder and dot_product_scoring.
void sam3_detector_heads(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
