// Builders of the universal segmentation models (group seg_b, family_groups.h): Mask2Former
// (mask2former.cpp: a backbone, a multi-scale deformable-attention pixel decoder and a masked-attention
// transformer decoder), OneFormer (oneformer.cpp: Mask2Former's pixel decoder, a task token, a query
// transformer and Mask2Former-style decoder layers) and EoMT (eomt.cpp: a DINOv2-style ViT whose last layers
// carry the queries). The backbones come from seg_backbones.cpp, deformable attention from detr.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/model_template.h"

namespace ma::families {

void build_mask2former(const ModelConfig& cfg,
                       ModelTemplate& t);  // Mask2FormerModel / ForUniversalSegmentation
void build_oneformer(const ModelConfig& cfg, ModelTemplate& t);  // OneFormerModel / ForUniversalSegmentation
void build_eomt(const ModelConfig& cfg, ModelTemplate& t);       // EomtForUniversalSegmentation

// torch's nn.MultiheadAttention(d, heads) under `p`: the fused in_proj_weight [3d, d] and in_proj_bias, then
// out_proj (a Linear). Lives in mask2former.cpp.
void torch_multihead_attention(ModelTemplate& t, const std::string& p, uint64_t d);

// How a config spells the pixel decoder's sizes: Mask2FormerConfig's names by default, OneFormerConfig's
// conv_dim / mask_dim / strides in OneFormer.
struct PixelDecoderFields {
  const char* feature = "feature_size";
  const char* mask = "mask_feature_size";
  const char* strides = "feature_strides";
};
// Mask2Former's pixel decoder (Mask2FormerPixelDecoder, copied by OneFormerPixelDecoder) under `p` over the
// backbone's feature maps `channels`: the level embeddings, a 1 x 1 projection and GroupNorm per map of the
// last three (deepest first), the deformable-attention encoder, the mask projection and the FPN's adapter_i
// / layer_i for the higher-resolution maps. Returns the encoder's stack. Lives in mask2former.cpp.
StackDims mask2former_pixel_decoder(const ModelConfig& cfg, const PixelDecoderFields& f,
                                    const std::vector<uint64_t>& channels, const std::string& p,
                                    ModelTemplate& t);

}  // namespace ma::families
