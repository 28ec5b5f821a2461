// VideoMAE (VideoMAEModel, VideoMAEForPreTraining, VideoMAEForVideoClassification): a ViT over tubelets of
// tubelet_size frames (a Conv3d patch embedding) whose modeling_videomae.py layers keep transformers 4's
// modules, with VideoMAE's own query and value biases. Its positions are a fixed sine-cosine table held as a
// plain tensor attribute: neither a parameter nor a buffer, so not in state_dict. VideoMAEConfig's defaults
// are MCG-NJU/videomae-base's (16 frames of 224 pixels, tubelets of 2 x 16 x 16).
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/vit_relatives.h"

namespace ma::families {
namespace {

// VideoMAEModel under `prefix`: the tubelet projection, the layers and, without mean pooling, the final
// LayerNorm. Returns the number of tubelets (the positions the sine-cosine tables cover).
uint64_t videomae_body(const ModelConfig& cfg, const std::string& cls, const std::string& prefix,
                       ModelTemplate& t) {
  TextEncoderDims d = vit_base_dims(cfg);
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 224);
  const auto [patch_h, patch_w] = vit_pair(cfg, "patch_size", 16);
  if (patch_h > image_h || patch_w > image_w) cfg.fail("patch_size", "must not exceed image_size");
  const uint64_t frames = cfg.dim_or("num_frames", 16), tubelet = cfg.dim_or("tubelet_size", 2);
  if (tubelet > frames) cfg.fail("tubelet_size", "must not exceed num_frames");
  d.max_positions = (image_h / patch_h) * (image_w / patch_w) * (frames / tubelet);
  fill_encoder_record(t, cls, d);
  const uint64_t h = d.layer.hidden;
  t.add(prefix + "embeddings.patch_embeddings.projection.weight",
        {h, cfg.dim_or("num_channels", 3), tubelet, patch_h, patch_w});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  vit4_encoder(t, prefix + "encoder.layer", d.layers, d.layer, Vit4QkvBias::QueryValueParameters);
  StackSpec& encoder = t.arch.stacks.back();
  encoder.patch_size = patch_h;
  encoder.image_size = image_h;
  if (!cfg.flag_or("use_mean_pooling", true)) blocks::norm(t, prefix + "layernorm", h, true);
  return d.max_positions;
}

// VideoMAEDecoder: VideoMAELayers of the decoder_* sizes (the encoder's config otherwise, qkv_bias
// included), a LayerNorm and the per-tubelet pixel predictor.
void videomae_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  LayerDims d;
  d.hidden = cfg.dim_or("decoder_hidden_size", 384);
  d.heads = cfg.dim_or("decoder_num_attention_heads", 6);
  d.ffn = cfg.dim_or("decoder_intermediate_size", 1536);
  d.qkv_bias = cfg.flag_or("qkv_bias", true);
  split_heads(cfg, "decoder_num_attention_heads", d.hidden, d.heads);
  // decoder_num_labels = num_channels * tubelet_size * patch_size**2: an integer patch size only.
  if (const json::Value* patch = cfg.raw("patch_size"); patch && patch->is_array())
    cfg.fail("patch_size",
             "must be an integer: VideoMAEForPreTraining's decoder predicts patch_size**2 pixels");
  const uint64_t patch = cfg.dim_or("patch_size", 16);
  const uint64_t pixels = cfg.dim_or("num_channels", 3) * cfg.dim_or("tubelet_size", 2) * patch * patch;
  vit4_encoder(t, "decoder.decoder_layers", cfg.layers_or("decoder_num_hidden_layers", 4, 0), d,
               Vit4QkvBias::QueryValueParameters);
  blocks::norm(t, "decoder.norm", d.hidden, true);
  blocks::linear(t, "decoder.head", d.hidden, pixels, true);
}

}  // namespace

void build_videomae(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VideoMAEModel");
  const std::string task =
      supported_task(cfg, cls, "VideoMAE", {"Model", "ForPreTraining", "ForVideoClassification"});
  if (task == "Model") {
    videomae_body(cfg, cls, "", t);
    return;
  }
  if (task == "ForPreTraining") {
    // VideoMAEForPreTraining's own mask_token is listed before its modules; its decoder positions are
    // another plain sine-cosine tensor.
    t.add("mask_token", {1, 1, cfg.dim_or("decoder_hidden_size", 384)});
    videomae_body(cfg, cls, "videomae.", t);
    blocks::linear(t, "encoder_to_decoder", t.arch.hidden_size, cfg.dim_or("decoder_hidden_size", 384),
                   false);
    videomae_decoder(cfg, t);
    return;
  }
  videomae_body(cfg, cls, "videomae.", t);
  const uint64_t h = t.arch.hidden_size;
  // fc_norm: a LayerNorm over the mean-pooled tokens (eps 1e-5); the classifier an Identity without labels.
  if (cfg.flag_or("use_mean_pooling", true)) blocks::norm(t, "fc_norm", h, true);
  if (const uint64_t labels = num_labels(cfg)) blocks::linear(t, "classifier", h, labels, true);
}

}  // namespace ma::families
