// Mask2Former (model_type mask2former: Mask2FormerModel, Mask2FormerForUniversalSegmentation;
// facebook/mask2former-swin-{tiny,small,base,large}-{coco,ade,cityscapes}-{instance,panoptic,semantic}): a
// backbone (Swin by default), a pixel decoder whose encoder runs multi-scale deformable attention over the
// last three feature maps and whose FPN adds the higher-resolution ones, then a decoder whose layers attend
// (masked) one feature map each, attend each other and run an FFN; a mask predictor after every layer.
// Mask2FormerConfig's default backbone is a Swin-S at 224 (modeling_mask2former.py, configuration_...).
#include <cmath>
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/seg_b.h"
#include "model/families/seg_heads.h"

namespace ma::families {
namespace {

// Mask2FormerConfig's default backbone_config (a SwinConfig with these kwargs, out_features stage1..4).
constexpr const char* kMask2FormerDefaultBackbone =
    R"({"model_type":"swin","image_size":224,"embed_dim":96,"depths":[2,2,18,2],"num_heads":[3,6,12,24],
    "window_size":7,"use_absolute_embeddings":false,"out_features":["stage1","stage2","stage3","stage4"]})";

// Mask2FormerMaskedAttentionDecoderLayer under `p`: its own DETR-style self-attention (k, v, q, out), then
// torch's nn.MultiheadAttention for the masked cross-attention, each with a LayerNorm, then the FFN.
void mask2former_decoder_layer(ModelTemplate& t, const std::string& p, const LayerDims& l) {
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + "self_attn." + proj, l.hidden, l.hidden, true);
  blocks::norm(t, p + "self_attn_layer_norm", l.hidden, true);
  torch_multihead_attention(t, p + "cross_attn.", l.hidden);
  blocks::norm(t, p + "cross_attn_layer_norm", l.hidden, true);
  blocks::linear(t, p + "fc1", l.hidden, l.ffn, true);
  blocks::linear(t, p + "fc2", l.ffn, l.hidden, true);
  blocks::norm(t, p + "final_layer_norm", l.hidden, true);
}

// Mask2FormerModel's modules under `p` ("" or "model."). Returns the decoder's width (hidden_dim).
uint64_t mask2former_model(const ModelConfig& cfg, const std::string& p, ModelTemplate& t) {
  const std::vector<uint64_t> channels =
      seg_backbone(cfg, kMask2FormerDefaultBackbone, p + "pixel_level_module.encoder.", false, t);
  const StackDims enc = mask2former_pixel_decoder(cfg, {}, channels, p + "pixel_level_module.decoder.", t);

  // Mask2FormerTransformerModule: the sine position embedder and the input projections (a plain Python list,
  // so never registered: no parameters even when feature_size differs from hidden_dim) hold nothing.
  const uint64_t d = cfg.dim_or("hidden_dim", 256);
  StackDims dec;
  // decoder_layers - 1 layers: the first mask prediction comes from the queries themselves.
  dec.layers = cfg.count_or("decoder_layers", 10);
  dec.layers = dec.layers > 0 ? dec.layers - 1 : 0;
  dec.layer = {d, cfg.dim_or("num_attention_heads", 8), cfg.dim_or("dim_feedforward", 2048)};
  if (d % dec.layer.heads != 0) cfg.fail("num_attention_heads", "must divide hidden_dim");
  const std::string m = p + "transformer_module.";
  const uint64_t queries = cfg.dim_or("num_queries", 100);
  blocks::embedding(t, m + "queries_embedder.weight", queries, d);
  blocks::embedding(t, m + "queries_features.weight", queries, d);
  for (uint64_t i = 0; i < dec.layers; ++i)
    mask2former_decoder_layer(t, m + "decoder.layers." + std::to_string(i) + ".", dec.layer);
  blocks::norm(t, m + "decoder.layernorm", d, true);
  // Mask2FormerMaskPredictor's MLP: three PredictionBlocks (Linear + activation, Sequential-style names).
  const std::string e = m + "decoder.mask_predictor.mask_embedder.";
  blocks::linear(t, e + "0.0", d, d, true);
  blocks::linear(t, e + "1.0", d, d, true);
  blocks::linear(t, e + "2.0", d, cfg.dim_or("mask_feature_size", 256), true);
  blocks::embedding(t, m + "level_embed.weight", 3, d);

  ArchitectureRecord& a = t.arch;
  a.post_norm = !cfg.flag_or("pre_norm", false);
  a.norm = NormKind::LayerNorm;
  a.activation = cfg.string_or("activation_function", "relu");
  a.position = PositionKind::Sinusoidal;
  a.attention_bias = a.mlp_bias = true;
  describe_stack(t, StackRole::Encoder, p + "pixel_level_module.decoder.encoder.layers", enc,
                 enc.layer.hidden / enc.layer.heads);
  describe_stack(t, StackRole::Decoder, m + "decoder.layers", dec, d / dec.layer.heads);
  describe_main(t, dec, 0);
  return d;
}

}  // namespace

void torch_multihead_attention(ModelTemplate& t, const std::string& p, uint64_t d) {
  t.add(p + "in_proj_weight", {3 * d, d});
  t.add(p + "in_proj_bias", {3 * d});
  blocks::linear(t, p + "out_proj", d, d, true);
}

StackDims mask2former_pixel_decoder(const ModelConfig& cfg, const PixelDecoderFields& f,
                                    const std::vector<uint64_t>& channels, const std::string& p,
                                    ModelTemplate& t) {
  const uint64_t d = cfg.dim_or(f.feature, 256);
  // nn.GroupNorm(32, feature_dim) after every projection: torch refuses widths 32 groups do not divide.
  if (d % 32 != 0) cfg.fail(f.feature, "must be a multiple of 32 (the pixel decoder's GroupNorm(32, ...))");
  StackDims enc;
  enc.layers = cfg.count_or("encoder_layers", 6);
  enc.layer = {d, cfg.dim_or("num_attention_heads", 8), cfg.dim_or("encoder_feedforward_dim", 1024)};
  if (d % enc.layer.heads != 0) cfg.fail("num_attention_heads", std::string("must divide ") + f.feature);

  // num_feature_levels is fixed at 3: the last three maps (fewer when the backbone hands on fewer).
  constexpr size_t kLevels = 3;
  const size_t first = channels.size() > kLevels ? channels.size() - kLevels : 0;
  t.add(p + "level_embed", {kLevels, d});           // the decoder's own parameter: first in state_dict
  for (size_t i = channels.size(); i-- > first;) {  // deepest map first
    const std::string ip = p + "input_projections." + std::to_string(channels.size() - 1 - i) + ".";
    blocks::conv2d(t, ip + "0", channels[i], d, 1);
    blocks::norm(t, ip + "1", d, true);
  }
  // Mask2FormerPixelDecoderEncoderLayer: deformable self-attention over 3 levels, 4 points (fixed), an FFN.
  for (uint64_t i = 0; i < enc.layers; ++i) {
    const std::string l = p + "encoder.layers." + std::to_string(i) + ".";
    detr_deformable_attention(t, l + "self_attn.", d, enc.layer.heads, kLevels, 4);
    blocks::norm(t, l + "self_attn_layer_norm", d, true);
    blocks::linear(t, l + "fc1", d, enc.layer.ffn, true);
    blocks::linear(t, l + "fc2", enc.layer.ffn, d, true);
    blocks::norm(t, l + "final_layer_norm", d, true);
  }
  blocks::conv2d(t, p + "mask_projection", d, cfg.dim_or(f.mask, 256), 1);

  // The FPN levels: int(log2(min(feature_strides[-3:])) - log2(common_stride)) of the first maps, each an
  // adapter (bias-free 1 x 1 conv, GroupNorm) and a layer (bias-free 3 x 3 conv, GroupNorm), registered by
  // add_module as adapter_1, layer_1, ... (the reversed lists that use them are plain Python lists).
  std::vector<uint64_t> strides = cfg.dims_or(f.strides, {4, 8, 16, 32});
  if (strides.empty()) cfg.fail(f.strides, "must not be empty (min() of its last three)");
  uint64_t stride = strides.back();
  for (size_t i = strides.size() > kLevels ? strides.size() - kLevels : 0; i < strides.size(); ++i)
    stride = std::min(stride, strides[i]);
  const double levels =
      std::log2(static_cast<double>(stride)) - std::log2(static_cast<double>(cfg.dim_or("common_stride", 4)));
  // A negative count would make channels[:n] drop maps from the end; no released model has one.
  if (levels < 0) cfg.fail("common_stride", "must not exceed the smallest of the last three feature strides");
  const size_t fpn = std::min(channels.size(), static_cast<size_t>(levels));
  for (size_t i = 0; i < fpn; ++i) {
    const std::string n = std::to_string(i + 1);
    t.add(p + "adapter_" + n + ".0.weight", {d, channels[i], 1, 1});
    blocks::norm(t, p + "adapter_" + n + ".1", d, true);
    t.add(p + "layer_" + n + ".0.weight", {d, d, 3, 3});
    blocks::norm(t, p + "layer_" + n + ".1", d, true);
  }
  return enc;
}

void build_mask2former(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Mask2FormerModel");
  const std::string task = supported_task(cfg, cls, "Mask2Former", {"Model", "ForUniversalSegmentation"});
  t.arch.architecture = cls;
  if (task == "Model") {
    mask2former_model(cfg, "", t);
    return;
  }
  const uint64_t d = mask2former_model(cfg, "model.", t);
  const uint64_t labels = num_labels(cfg);
  blocks::linear(t, "class_predictor", d, labels + 1, true);  // + 1: the "no object" class
  // Mask2FormerLoss registers the class weights (1 per class, no_object_weight last) as a persistent buffer.
  t.add("criterion.empty_weight", {labels + 1}).kind = TensorKind::Buffer;
}

}  // namespace ma::families
