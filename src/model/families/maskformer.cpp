// MaskFormer (model_type maskformer: MaskFormerModel, MaskFormerForInstanceSegmentation; facebook/maskformer-
// swin-{tiny,small,base,large}-{ade,coco}, maskformer-resnet*): a backbone and an FPN pixel decoder make
// per-pixel embeddings, DETR's decoder turns num_queries learned queries into mask embeddings and classes.
// There is no transformer encoder: the decoder attends the last feature map (sine positions, computed).
// A swin backbone_config becomes a MaskFormerSwinConfig (modeling_maskformer_swin.py) with out_features
// forced to stage1..stage4; MaskFormerConfig's default backbone is Swin-B at 384 pixels.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_model.h"
#include "model/families/seg_heads.h"

namespace ma::families {
namespace {

// MaskFormerConfig's default backbone_config (consolidate_backbone_kwargs_to_config's kwargs: Swin-B, 384).
constexpr const char* kMaskFormerDefaultBackbone =
    R"({"model_type":"swin","depths":[2,2,18,2],"image_size":384,"embed_dim":128,"num_heads":[4,8,16,32],
    "window_size":12,"out_features":["stage1","stage2","stage3","stage4"]})";

// A bias-free convolution and its GroupNorm(32, out) under `p`.0 / `p`.1 (MaskFormerFPNConvLayer's, the FPN
// layers' proj). torch's GroupNorm refuses channels that 32 groups do not divide.
void maskformer_conv_group_norm(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t in,
                                uint64_t out, uint64_t kernel) {
  if (out % 32 != 0) cfg.fail("fpn_feature_size", "must be a multiple of 32 (the FPN's GroupNorm(32, ...))");
  t.add(p + ".0.weight", {out, in, kernel, kernel});
  blocks::norm(t, p + ".1", out, true);
}

// MaskFormerPixelDecoder under `p`: the FPN (a 3 x 3 stem over the last feature map, then one layer per
// other map, deepest first: a 1 x 1 lateral projection and a 3 x 3 block) and the 3 x 3 mask projection.
void maskformer_pixel_decoder(const ModelConfig& cfg, const std::vector<uint64_t>& channels,
                              const std::string& p, ModelTemplate& t) {
  const uint64_t fpn = cfg.dim_or("fpn_feature_size", 256);
  maskformer_conv_group_norm(cfg, t, p + "fpn.stem", channels.back(), fpn, 3);
  for (size_t i = 0; i + 1 < channels.size(); ++i) {
    const std::string l = p + "fpn.layers." + std::to_string(i) + ".";
    maskformer_conv_group_norm(cfg, t, l + "proj", channels[channels.size() - 2 - i], fpn, 1);
    maskformer_conv_group_norm(cfg, t, l + "block", fpn, fpn, 3);
  }
  blocks::conv2d(t, p + "mask_projection", fpn, cfg.dim_or("mask_feature_size", 256), 3);
}

// decoder_config as MaskFormerConfig reads it: DetrConfig's defaults (facebook/detr-resnet-50's) when
// absent; a given one must say model_type detr (the config pops it to pick the class).
ModelConfig maskformer_decoder_config(const ModelConfig& cfg) {
  if (!cfg.has("decoder_config")) return sub_or(cfg, "decoder_config", R"({"model_type":"detr"})");
  if (sub_model_type(cfg, "decoder_config") != "detr")
    sub_or_empty(cfg, "decoder_config").fail("model_type", "must be detr (MaskFormer's only decoder)");
  return sub_or_empty(cfg, "decoder_config");
}

// MaskFormerModel's modules under `p` ("" or "model."). Returns the decoder's width.
uint64_t maskformer_model(const ModelConfig& cfg, const std::string& p, ModelTemplate& t) {
  const ModelConfig dec_cfg = maskformer_decoder_config(cfg);
  const std::vector<uint64_t> channels =
      seg_backbone(cfg, kMaskFormerDefaultBackbone, p + "pixel_level_module.encoder.", true, t);
  maskformer_pixel_decoder(cfg, channels, p + "pixel_level_module.decoder.", t);

  // MaskFormerTransformerModule: the sine position embedder (no weights), the queries, a 1 x 1 projection
  // only when the last feature map is not already d_model wide, then DetrDecoder.
  const uint64_t d = dec_cfg.dim_or("d_model", 256);
  const StackDims dec = read_stack(dec_cfg, "decoder", d, 6, 8, 2048);
  const std::string m = p + "transformer_module.";
  blocks::embedding(t, m + "queries_embedder.weight", dec_cfg.dim_or("num_queries", 100), d);
  if (channels.back() != d) blocks::conv2d(t, m + "input_projection", channels.back(), d, 1);
  for (uint64_t i = 0; i < dec.layers; ++i)
    transformer_layer(t, m + "decoder.layers." + std::to_string(i), bart_layer_names(true), dec.layer);
  blocks::norm(t, m + "decoder.layernorm", d, true);

  ArchitectureRecord& a = t.arch;
  a.post_norm = true;
  a.norm = NormKind::LayerNorm;
  a.activation = dec_cfg.string_or("activation_function", "relu");
  a.position = PositionKind::Sinusoidal;
  a.attention_bias = a.mlp_bias = true;
  describe_stack(t, StackRole::Decoder, m + "decoder.layers", dec, d / dec.layer.heads);
  describe_main(t, dec, 0);
  return d;
}

}  // namespace

void build_maskformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MaskFormerModel");
  const std::string task = supported_task(cfg, cls, "MaskFormer", {"Model", "ForInstanceSegmentation"});
  t.arch.architecture = cls;
  if (task == "Model") {
    maskformer_model(cfg, "", t);
    return;
  }
  const uint64_t d = maskformer_model(cfg, "model.", t);
  const uint64_t labels = num_labels(cfg);
  blocks::linear(t, "class_predictor", d, labels + 1, true);  // + 1: the "no object" class
  // MaskformerMLPPredictionHead: three PredictionBlocks (a Linear and an activation, as a Sequential would
  // name them), the last out to mask_feature_size.
  blocks::linear(t, "mask_embedder.0.0", d, d, true);
  blocks::linear(t, "mask_embedder.1.0", d, d, true);
  blocks::linear(t, "mask_embedder.2.0", d, cfg.dim_or("mask_feature_size", 256), true);
  // MaskFormerLoss registers the cross-entropy class weights (1 per class, no_object_weight last) as a
  // persistent buffer: saved with the model.
  t.add("criterion.empty_weight", {labels + 1}).kind = TensorKind::Buffer;
}

}  // namespace ma::families
