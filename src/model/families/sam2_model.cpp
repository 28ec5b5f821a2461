// Sam2Model (facebook/sam2-hiera-*, facebook/sam2.1-hiera-tiny, -small, -base-plus, -large): SAM 2's image
// encoder (sam2_hiera.cpp), SAM's prompt encoder with the points' embeddings in one table, and SAM's
// two-way mask decoder that also adds the encoder's two high-resolution feature maps (conv_s0, conv_s1) and
// scores whether the object is present. The memory attention, memory encoder and object-pointer heads of the
// checkpoints are Sam2VideoModel's: Sam2Model skips them on load. Sam2Config's defaults are SAM 2.1
// Hiera-T's.
#include <string>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam2.h"
#include "model/families/segment_anything.h"

namespace ma::families {
namespace {

// Sam2MaskDecoder under mask_decoder.
void sam2_mask_decoder(const ModelConfig& d, ModelTemplate& t) {
  const std::string p = "mask_decoder.";
  const uint64_t h = d.dim_or("hidden_size", 256);
  const uint64_t masks = d.count_or("num_multimask_outputs", 3) + 1;  // the single-mask token first
  if (h < 8) d.fail("hidden_size", "must be at least 8 (the upscaling ends at hidden_size // 8 channels)");
  blocks::embedding(t, p + "iou_token.weight", 1, h);
  blocks::embedding(t, p + "mask_tokens.weight", masks, h);
  sam2_two_way_transformer(d, t, p + "transformer.");
  sam_mask_head(d, t, p, h, masks);
  // 1 x 1 convolutions bringing the two high-resolution FPN levels to the upscaling's widths, then the
  // object-score token and its three-layer MLP.
  blocks::conv2d(t, p + "conv_s0", h, h / 8, 1);
  blocks::conv2d(t, p + "conv_s1", h, h / 4, 1);
  blocks::embedding(t, p + "obj_score_token.weight", 1, h);
  sam_feed_forward(t, p + "pred_obj_score_head.", h, h, 1, 3);
}

}  // namespace

void sam2_two_way_transformer(const ModelConfig& d, ModelTemplate& t, const std::string& p) {
  const uint64_t h = d.dim_or("hidden_size", 256);
  // Unlike SAM, every cross-attention reads attention_downsample_rate, and Sam2Attention sets no check on
  // the heads (the head width is a floor division); the output projection is o_proj.
  const uint64_t cross = h / d.dim_or("attention_downsample_rate", 2);
  const uint64_t mlp = d.dim_or("mlp_dim", 2048);
  const uint64_t layers = d.layers_or("num_hidden_layers", 2);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    sam_two_way_attention(t, l + "self_attn.", h, h, "o_proj");
    blocks::norm(t, l + "layer_norm1", h, true);
    sam_two_way_attention(t, l + "cross_attn_token_to_image.", h, cross, "o_proj");
    blocks::norm(t, l + "layer_norm2", h, true);
    // A Sam2FeedForward whose depth is num_hidden_layers, the transformer's own depth (two by default).
    sam_feed_forward(t, l + "mlp.", h, mlp, h, layers);
    blocks::norm(t, l + "layer_norm3", h, true);
    blocks::norm(t, l + "layer_norm4", h, true);
    sam_two_way_attention(t, l + "cross_attn_image_to_token.", h, cross, "o_proj");
  }
  sam_two_way_attention(t, p + "final_attn_token_to_image.", h, cross, "o_proj");
  blocks::norm(t, p + "layer_norm_final_attn", h, true);
}

ModelConfig sam2_vision_config(const ModelConfig& cfg) {
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  // The composite config builds vision_config by its model_type (AutoConfig); SAM 2's is Sam2VisionConfig.
  if (const std::string type = vision.string_or("model_type", "sam2_vision_model");
      type != "sam2_vision_model")
    unsupported(cfg, "SAM 2 with the image encoder " + printable(type) + " (vision_config.model_type)");
  return vision;
}

void sam2_shared_image_embedding(const ModelConfig& cfg, ModelTemplate& t) {
  // Sam2PositionalEmbedding(prompt_encoder_config): a persistent [2, hidden_size // 2] buffer.
  const uint64_t h = sub_or_empty(cfg, "prompt_encoder_config").dim_or("hidden_size", 256);
  t.add("shared_image_embedding.positional_embedding", {2, h / 2}).kind = TensorKind::Buffer;
}

void sam2_prompt_and_mask_decoders(const ModelConfig& cfg, ModelTemplate& t) {
  sam_prompt_encoder(sub_or_empty(cfg, "prompt_encoder_config"), t, true);
  sam2_mask_decoder(sub_or_empty(cfg, "mask_decoder_config"), t);
}

void sam2_image_modules(const ModelConfig& cfg, const std::string& cls, ModelTemplate& t) {
  sam2_shared_image_embedding(cfg, t);
  sam2_vision(sam2_vision_config(cfg), "vision_encoder.", cls, t);
  sam2_prompt_and_mask_decoders(cfg, t);
}

void build_sam2(const ModelConfig& cfg, ModelTemplate& t) {
  // Sam2Model's own parameter, the token added to the last feature map when there is no memory (zeros),
  // fpn_hidden_size wide; being the model's own, it comes before every module's.
  t.add("no_memory_embedding", {1, 1, sam2_vision_config(cfg).dim_or("fpn_hidden_size", 256)});
  sam2_image_modules(cfg, "Sam2Model", t);
}

}  // namespace ma::families
