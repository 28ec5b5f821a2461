// TimeSformer (TimesformerModel, TimesformerForVideoClassification): a ViT over every frame's patches whose
// modeling_timesformer.py layers keep transformers 4's module names, with a fused qkv projection and, for
// divided space-time attention, a second (temporal) attention before the spatial one: its LayerNorm,
// attention and an output Linear, registered after the layer's spatial modules. TimesformerConfig's
// defaults are facebook/timesformer-base-finetuned-k400's (8 frames of 224 pixels, 16-pixel patches).
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vit_relatives.h"

namespace ma::families {
namespace {

// TimeSformerAttention under `p`: TimesformerSelfAttention's fused qkv (biased by qkv_bias) and the output.
void timesformer_attention(ModelTemplate& t, const std::string& p, uint64_t h, bool qkv_bias) {
  blocks::linear(t, p + ".attention.qkv", h, 3 * h, qkv_bias);
  blocks::linear(t, p + ".output.dense", h, h, true);
}

}  // namespace

void build_timesformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "TimesformerModel");
  const std::string task = supported_task(cfg, cls, "Timesformer", {"Model", "ForVideoClassification"});
  const std::string prefix = task == "Model" ? "" : "timesformer.";
  // TimesformerLayer refuses any other type while it is built.
  const std::string type = cfg.string_or("attention_type", "divided_space_time");
  if (type != "divided_space_time" && type != "space_only" && type != "joint_space_time")
    cfg.fail("attention_type", "must be divided_space_time, space_only or joint_space_time");
  TextEncoderDims d = vit_base_dims(cfg);
  const bool qkv_bias = d.layer.qkv_bias;
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 224);
  const auto [patch_h, patch_w] = vit_pair(cfg, "patch_size", 16);
  if (patch_h > image_h || patch_w > image_w) cfg.fail("patch_size", "must not exceed image_size");
  // One position per patch of a frame and [CLS]; frames get a time embedding of their own instead.
  d.max_positions = (image_h / patch_h) * (image_w / patch_w) + 1;
  fill_encoder_record(t, cls, d);
  const uint64_t h = d.layer.hidden;
  t.add(prefix + "embeddings.cls_token", {1, 1, h});
  t.add(prefix + "embeddings.position_embeddings", {1, d.max_positions, h});
  if (type != "space_only") t.add(prefix + "embeddings.time_embeddings", {1, cfg.dim_or("num_frames", 8), h});
  t.add(prefix + "embeddings.patch_embeddings.projection.weight",
        {h, cfg.dim_or("num_channels", 3), patch_h, patch_w});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  encoder.patch_size = patch_h;
  encoder.image_size = image_h;
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string p = encoder.path + "." + std::to_string(i);
    timesformer_attention(t, p + ".attention", h, qkv_bias);
    blocks::linear(t, p + ".intermediate.dense", h, d.layer.ffn, true);
    blocks::linear(t, p + ".output.dense", d.layer.ffn, h, true);
    blocks::norm(t, p + ".layernorm_before", h, true);
    blocks::norm(t, p + ".layernorm_after", h, true);
    if (type == "divided_space_time") {
      blocks::norm(t, p + ".temporal_layernorm", h, true);
      timesformer_attention(t, p + ".temporal_attention", h, qkv_bias);
      blocks::linear(t, p + ".temporal_dense", h, h, true);
    }
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::norm(t, prefix + "layernorm", h, true);
  if (task == "ForVideoClassification")
    if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", h, labels, true);
}

}  // namespace ma::families
