// The document-reading vision families in group ocr_vlms (swin.cpp, pix2struct.cpp): Swin, Donut's copy of it
// (the image encoder Donut and Nougat nest in a vision-encoder-decoder) and Swin V2, and Pix2Struct. Each
// file builds its model_types; ocr_vlms.cpp lists them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_swin(const ModelConfig& cfg, ModelTemplate& t);               // Swin Transformer (SwinModel, ...)
void build_donut_swin(const ModelConfig& cfg, ModelTemplate& t);         // Donut's Swin (DonutSwinModel, ...)
void build_swinv2(const ModelConfig& cfg, ModelTemplate& t);             // Swin V2 (Swinv2Model, ...)
void build_pix2struct(const ModelConfig& cfg, ModelTemplate& t);         // Pix2StructForConditionalGeneration
void build_pix2struct_vision(const ModelConfig& cfg, ModelTemplate& t);  // Pix2StructVisionModel alone
void build_pix2struct_text(const ModelConfig& cfg, ModelTemplate& t);    // Pix2StructTextModel alone

// One Swinv2Layer (transformers 5) of `dim` channels under `block` (ending in "."), its Hub names
// transformers 4's: Swin2SR's stages are made of it (swin2sr.cpp).
void swinv2_layer(ModelTemplate& t, const std::string& block, uint64_t dim, uint64_t heads, uint64_t mlp,
                  bool qkv_bias);

// One DonutSwinLayer (transformers 4's Swin layer: attention.self.{query,key,value} with the bias table of a
// `window` x `window` window and its persistent index, attention.output.dense, intermediate / output) under
// `block` (ending in "."): CLAP's HTSAT audio encoder is made of its copy (clap.cpp).
void donut_swin_layer(ModelTemplate& t, const std::string& block, uint64_t dim, uint64_t heads, uint64_t mlp,
                      uint64_t window, bool qkv_bias);

// The config keys a Swin-style encoder names its stage plan with (Swin's depths / num_heads / embed_dim,
// CLAP's audio encoder's depths / num_attention_heads / patch_embeds_hidden_size).
struct SwinStageKeys {
  std::string_view depths, heads, embed;
};
// Refuses, naming the key, a stage plan transformers could not build or we cannot hold: no stage, more than
// 1,024 blocks, fewer head counts than stages, a width doubled past 2^26, a window over 4,096, an MLP width
// outside 1 .. 2^26 and, when `heads_divide_width`, heads that do not divide a stage's width (embed x
// 2^stage).
void check_swin_stages(const ModelConfig& cfg, const SwinStageKeys& keys, const std::vector<uint64_t>& depths,
                       const std::vector<uint64_t>& heads, uint64_t embed, uint64_t window, double mlp_ratio,
                       bool heads_divide_width);

}  // namespace ma::families
