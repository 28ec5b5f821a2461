// Builders of Meta's Segment Anything (group segment_anything, family_groups.h): SamModel (sam_model.cpp) and
// its image encoder alone (sam_vision_model.cpp), and SAM-HQ's two classes (sam_hq.cpp). The encoder itself
// is sam_vision.h's, shared with GOT-OCR 2.0 and DeepSeek-VL.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/families/sam_vision.h"
#include "model/model_template.h"

namespace ma::families {

void build_sam(const ModelConfig& cfg, ModelTemplate& t);               // SamModel
void build_sam_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // SamVisionModel
// SAM-HQ (sam_hq.cpp): SamModel's modules, its mask decoder extended by the HQ token and the fusion convs.
void build_sam_hq(const ModelConfig& cfg, ModelTemplate& t);               // SamHQModel
void build_sam_hq_vision_model(const ModelConfig& cfg, ModelTemplate& t);  // SamHQVisionModel

// The record of a model whose dimensions are its SAM image encoder's, as class `cls` (sam_vision_model.cpp).
void sam_record(const SamShape& s, const std::string& cls, ArchitectureRecord& a);
// SamVisionModel's modules from its top-level config (the encoder under vision_encoder), recorded as `cls`
// (sam_vision_model.cpp); SamHQVisionModel is the same class.
void sam_vision_model_modules(const ModelConfig& cfg, const std::string& cls, ModelTemplate& t);
// SamModel's modules in their order, recorded as `cls` (sam_model.cpp): the positional basis
// shared_image_embedding (a buffer), vision_encoder, prompt_encoder and mask_decoder (sam_mask_decoder).
void sam_model_modules(const ModelConfig& cfg, const std::string& cls, ModelTemplate& t);
// SamMaskDecoder under mask_decoder. from its config `d`: the IoU and mask tokens, the two-way transformer
// and sam_mask_head.
void sam_mask_decoder(const ModelConfig& d, ModelTemplate& t);

// SamModel's parts that SAM 2 (sam2_model.cpp) builds alike (sam_model.cpp).
// SamFeedForward under `p`: proj_in, proj_out, then `layers` - 2 hidden Linears (registered in that order).
void sam_feed_forward(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden, uint64_t out,
                      uint64_t layers);
// SamAttention under `p`: q_proj, k_proj, v_proj from `hidden` to `internal`, then `out` (SAM's out_proj,
// SAM 2's o_proj) back.
void sam_two_way_attention(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t internal,
                           const char* out = "out_proj");
// SamMaskEmbedding under `p` (three convs and two channels-first LayerNorms), from the prompt encoder config
// `pc`'s mask_input_channels to `hidden`.
void sam_mask_embedding(const ModelConfig& pc, ModelTemplate& t, const std::string& p, uint64_t hidden);
// SamPromptEncoder under prompt_encoder. (SAM 2's with `point_table`: one table of point embeddings where SAM
// has one 1-row table per point kind).
void sam_prompt_encoder(const ModelConfig& pc, ModelTemplate& t, bool point_table);
// A stride-2 nn.ConvTranspose2d of kernel 2 under `p` (weight [in, out, 2, 2], bias [out]), the mask
// decoder's 2x upscaling step.
void sam_upscale_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out);
// The mask decoder's modules after its two-way transformer, under `p`: the two transposed convolutions that
// upscale the image embedding and their LayerNorm, one hypernetwork MLP per mask token (`masks`) and the IoU
// head, from the decoder config `d`.
void sam_mask_head(const ModelConfig& d, ModelTemplate& t, const std::string& p, uint64_t h, uint64_t masks);

}  // namespace ma::families
