// The hierarchical vision encoders of group vision_hier (segformer.cpp, pvt_v2.cpp over mix_transformer.cpp's
// stages, mobilevit.cpp, mobilevitv2.cpp, poolformer.cpp): each file builds one model family; vision_hier.cpp
// lists their model_types. Swin V2 is built beside Swin in swin.cpp (group ocr_vlms).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_segformer(const ModelConfig& cfg, ModelTemplate& t);    // SegFormer (MiT encoder, all-MLP head)
void build_pvt_v2(const ModelConfig& cfg, ModelTemplate& t);       // Pyramid Vision Transformer v2
void build_mobilevit(const ModelConfig& cfg, ModelTemplate& t);    // MobileViT (MobileNetV2 + transformer)
void build_mobilevitv2(const ModelConfig& cfg, ModelTemplate& t);  // MobileViTV2 (separable attention)
void build_poolformer(const ModelConfig& cfg, ModelTemplate& t);   // PoolFormer (pooling MetaFormer)

// The per-stage lists SegformerConfig and PvtV2Config share (their defaults are MiT-b0's / PVTv2-b0's): stage
// i embeds with a patch_sizes[i] conv of stride strides[i], then runs depths[i] blocks of hidden_sizes[i]
// channels whose keys and values are reduced by an sr_ratios[i] conv.
struct MixStages {
  uint64_t channels = 3;
  std::vector<uint64_t> widths, depths, heads, reductions, patches, strides, mlp_ratios;
  size_t count() const { return widths.size(); }
  uint64_t mlp(size_t stage) const { return widths[stage] * mlp_ratios[stage]; }  // int(width * mlp_ratio)
};
// The list `key` of a staged encoder's config, one value per stage (`dflt` when absent): the encoder indexes
// it by stage, so a list shorter than `stages` fails in transformers (an IndexError) and is refused here;
// longer ones go unread.
std::vector<uint64_t> per_stage_dims(const ModelConfig& cfg, std::string_view key, std::vector<uint64_t> dflt,
                                     size_t stages);
// Reads num_encoder_blocks stages; `mlp_ratios` is the config class's default for that list.
MixStages read_mix_stages(const ModelConfig& cfg, std::vector<uint64_t> mlp_ratios);
// The record of a staged encoder: its depth is all its blocks, its other dimensions the last stage's; one
// encoder stack over the stages at `stack_prefix` (a tensor's layer index is its stage's).
void record_mix_stages(ModelTemplate& t, const MixStages& s, const std::string& cls,
                       const std::string& stack_prefix);
// The overlapping patch embedding of `stage` under `p`: a padded, strided conv and a LayerNorm.
void mix_patch_embedding(ModelTemplate& t, const MixStages& s, size_t stage, const std::string& p);
// SegformerEncoder under `p` (segformer.cpp; GLPN's encoder is the same): all stages' patch embeddings, then
// all stages' blocks, then all stages' norms.
void segformer_encoder(ModelTemplate& t, const MixStages& s, const std::string& p);
// The Mix-FFN under `p`: dense1, a 3 x 3 depthwise conv over the expanded channels (dwconv.dwconv), dense2.
void mix_ffn(ModelTemplate& t, uint64_t width, uint64_t expanded, const std::string& p);

// The conv layers MobileViT and MobileViTV2 share (mobilevit.cpp). MobileViTConvLayer under `p`: a conv
// (`groups` groups; a bias only where the layer asks for one), then a BatchNorm whose running statistics the
// checkpoints store, unless `norm` is false.
void mobilevit_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel,
                    uint64_t groups = 1, bool norm = true, bool bias = false);
// make_divisible(value, divisor, min_value): the nearest multiple of `divisor` (at least min_value), raised
// by one divisor when that loses more than 10% of `value`.
uint64_t mobilevit_make_divisible(double value, uint64_t divisor, uint64_t min_value);
// MobileNetV2's inverted residual under `p`: a 1 x 1 expansion by expand_ratio, a 3 x 3 depthwise conv, a
// 1 x 1 reduction to `out`.
void mobilevit_inverted_residual(ModelTemplate& t, double expand_ratio, const std::string& p, uint64_t in,
                                 uint64_t out);

}  // namespace ma::families
