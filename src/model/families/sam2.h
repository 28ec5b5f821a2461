// Builders of Meta's SAM 2 (group segment_anything, family_groups.h): Sam2Model (sam2_model.cpp), its video
// tracker Sam2VideoModel (sam2_video.cpp), its image encoder Sam2VisionModel and that encoder's Hiera
// backbone Sam2HieraDetModel (sam2_vision_models.cpp). The backbone and the FPN neck themselves are
// sam2_hiera.cpp's.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_sam2(const ModelConfig& cfg, ModelTemplate& t);                  // Sam2Model
void build_sam2_vision_model(const ModelConfig& cfg, ModelTemplate& t);     // Sam2VisionModel
void build_sam2_hiera_det_model(const ModelConfig& cfg, ModelTemplate& t);  // Sam2HieraDetModel
void build_sam2_video(const ModelConfig& cfg, ModelTemplate& t);            // Sam2VideoModel
// EdgeTAM (edgetam.cpp): refused, its timm backbone's parameters being timm's, not the config's.
void build_edgetam(const ModelConfig& cfg, ModelTemplate& t);               // EdgeTamModel
void build_edgetam_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // EdgeTamVisionModel
void build_edgetam_video(const ModelConfig& cfg, ModelTemplate& t);         // EdgeTamVideoModel

// A SAM 2 composite config's vision_config, refused unless it is a Sam2VisionConfig.
ModelConfig sam2_vision_config(const ModelConfig& cfg);
// The modules Sam2Model and Sam2VideoModel share, in their order (sam2_model.cpp): the positional basis
// shared_image_embedding (a buffer), vision_encoder, prompt_encoder and mask_decoder, recorded as `cls`.
void sam2_image_modules(const ModelConfig& cfg, const std::string& cls, ModelTemplate& t);

// The pieces of sam2_image_modules, for models that put another image encoder between them (SAM 3's tracker):
// the shared_image_embedding buffer, then (after the image encoder) the prompt encoder and the mask decoder.
void sam2_shared_image_embedding(const ModelConfig& cfg, ModelTemplate& t);
void sam2_prompt_and_mask_decoders(const ModelConfig& cfg, ModelTemplate& t);
// Sam2TwoWayTransformer under `p` from the mask decoder config `d`: its two-way layers, the final
// token-to-image attention and its LayerNorm (SAM 3.1's multiplex mask decoder builds it too).
void sam2_two_way_transformer(const ModelConfig& d, ModelTemplate& t, const std::string& p);
// Sam2VideoModel's pieces around those modules (sam2_video.cpp), `hidden` being the image encoder's
// fpn_hidden_size: its own parameters (the memory and object tokens), registered first, and the memory
// attention, memory encoder, mask downsampler and object-pointer heads, registered after the mask decoder.
void sam2_video_parameters(const ModelConfig& cfg, uint64_t hidden, ModelTemplate& t);
void sam2_video_memory_modules(const ModelConfig& cfg, uint64_t hidden, ModelTemplate& t);

// Sam2HieraDetModel under `p` from its config `b` (Sam2HieraDetConfig), recorded as class `cls`: a windowed
// positional embedding, a strided patch convolution and stages of multi-scale blocks whose first block
// widens the stage (and pools its queries).
void sam2_hiera_det(const ModelConfig& b, const std::string& p, const std::string& cls, ModelTemplate& t);
// Sam2VisionModel under `p` from its config `v` (Sam2VisionConfig): the backbone backbone_config names, then
// the FPN neck's lateral convolutions. Returns the neck's width, fpn_hidden_size.
uint64_t sam2_vision(const ModelConfig& v, const std::string& p, const std::string& cls, ModelTemplate& t);

}  // namespace ma::families
