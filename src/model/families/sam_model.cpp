// SamModel (facebook/sam-vit-base, -large, -huge): SAM's image encoder (sam_vision.h), a prompt encoder that
// embeds points, boxes and masks, and a two-way transformer mask decoder with a hypernetwork MLP per mask
// token and an IoU head. SamConfig's defaults are ViT-B's (SamVisionConfig: 768 wide, 12 layers, global
// attention in layers 2, 5, 8 and 11); the large and huge checkpoints spell their vision sizes in
// vision_config.
#include <string>

#include "model/blocks.h"
#include "model/families/multimodal_towers.h"
#include "model/families/segment_anything.h"

namespace ma::families {

// SamFeedForward: proj_in, proj_out, then num_layers - 2 hidden Linears (registered in that order).
void sam_feed_forward(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden, uint64_t out,
                      uint64_t layers) {
  blocks::linear(t, p + "proj_in", in, hidden, true);
  blocks::linear(t, p + "proj_out", hidden, out, true);
  for (uint64_t i = 0; i + 2 < layers; ++i)
    blocks::linear(t, p + "layers." + std::to_string(i), hidden, hidden, true);
}

void sam_mask_embedding(const ModelConfig& pc, ModelTemplate& t, const std::string& p, uint64_t hidden) {
  const uint64_t mask = pc.dim_or("mask_input_channels", 16);
  if (mask < 4)
    pc.fail("mask_input_channels", "must be at least 4 (conv1 has mask_input_channels // 4 outputs)");
  const uint64_t quarter = mask / 4;
  blocks::conv2d(t, p + "conv1", 1, quarter, 2);
  blocks::conv2d(t, p + "conv2", quarter, mask, 2);
  blocks::conv2d(t, p + "conv3", mask, hidden, 1);
  blocks::norm(t, p + "layer_norm1", quarter, true);
  blocks::norm(t, p + "layer_norm2", quarter * 4, true);  // quarter * 4, not mask_input_channels
}

void sam_upscale_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out) {
  t.add(p + ".weight", {in, out, 2, 2});
  t.add(p + ".bias", {out});
}

void sam_mask_head(const ModelConfig& d, ModelTemplate& t, const std::string& p, uint64_t h, uint64_t masks) {
  // Two stride-2 transposed convolutions (weights [in, out, 2, 2]) upscale the image embedding 4x, down to
  // hidden_size // 8 channels, the width each mask token's hypernetwork MLP produces.
  sam_upscale_conv(t, p + "upscale_conv1", h, h / 4);
  sam_upscale_conv(t, p + "upscale_conv2", h / 4, h / 8);
  blocks::norm(t, p + "upscale_layer_norm", h / 4, true);
  for (uint64_t i = 0; i < masks; ++i)
    sam_feed_forward(t, p + "output_hypernetworks_mlps." + std::to_string(i) + ".", h, h, h / 8, 3);
  const uint64_t depth = d.count_or("iou_head_depth", 3);  // proj_in and proj_out at any depth
  sam_feed_forward(t, p + "iou_prediction_head.", h, d.dim_or("iou_head_hidden_dim", 256), masks, depth);
}

void sam_two_way_attention(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t internal,
                           const char* out) {
  for (const char* proj : {"q_proj", "k_proj", "v_proj"}) blocks::linear(t, p + proj, hidden, internal, true);
  blocks::linear(t, p + out, internal, hidden, true);
}

namespace {

// The width of a SamAttention downsampled by `rate`; transformers refuses heads that do not divide it.
uint64_t sam_attention_width(const ModelConfig& d, uint64_t hidden, uint64_t rate, uint64_t heads) {
  const uint64_t internal = hidden / rate;
  if (internal == 0 || internal % heads != 0)
    d.fail("num_attention_heads", "must divide the attention's width, hidden_size / " + std::to_string(rate) +
                                      " = " + std::to_string(internal));
  return internal;
}

}  // namespace

void sam_mask_decoder(const ModelConfig& d, ModelTemplate& t) {
  const std::string p = "mask_decoder.";
  const uint64_t h = d.dim_or("hidden_size", 256), heads = d.dim_or("num_attention_heads", 8);
  const uint64_t masks = d.count_or("num_multimask_outputs", 3) + 1;  // the single-mask token first
  if (h < 8) d.fail("hidden_size", "must be at least 8 (the upscaling ends at hidden_size // 8 channels)");
  blocks::embedding(t, p + "iou_token.weight", 1, h);
  blocks::embedding(t, p + "mask_tokens.weight", masks, h);
  // SamTwoWayTransformer: its blocks' cross-attentions halve the width whatever attention_downsample_rate
  // says (SamTwoWayAttentionBlock's own default of 2); only the final token-to-image attention reads the
  // config.
  const uint64_t self_width = sam_attention_width(d, h, 1, heads);
  const uint64_t block_width = sam_attention_width(d, h, 2, heads);
  const uint64_t final_width = sam_attention_width(d, h, d.dim_or("attention_downsample_rate", 2), heads);
  const uint64_t mlp = d.dim_or("mlp_dim", 2048);
  const uint64_t layers = d.layers_or("num_hidden_layers", 2);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "transformer.layers." + std::to_string(i) + ".";
    sam_two_way_attention(t, l + "self_attn.", h, self_width);
    blocks::norm(t, l + "layer_norm1", h, true);
    sam_two_way_attention(t, l + "cross_attn_token_to_image.", h, block_width);
    blocks::norm(t, l + "layer_norm2", h, true);
    blocks::linear(t, l + "mlp.lin1", h, mlp, true);
    blocks::linear(t, l + "mlp.lin2", mlp, h, true);
    blocks::norm(t, l + "layer_norm3", h, true);
    blocks::norm(t, l + "layer_norm4", h, true);
    sam_two_way_attention(t, l + "cross_attn_image_to_token.", h, block_width);
  }
  sam_two_way_attention(t, p + "transformer.final_attn_token_to_image.", h, final_width);
  blocks::norm(t, p + "transformer.layer_norm_final_attn", h, true);
  sam_mask_head(d, t, p, h, masks);
}

// SamPromptEncoder (Sam2PromptEncoder, `point_table`) under prompt_encoder.: the shared positional buffer,
// SamMaskEmbedding (three convs and two channels-first LayerNorms), no_mask_embed, the point embeddings (SAM:
// one 1-row table per point kind; SAM 2: one table of num_point_embeddings rows), not_a_point_embed.
void sam_prompt_encoder(const ModelConfig& pc, ModelTemplate& t, bool point_table) {
  const std::string p = "prompt_encoder.";
  const uint64_t h = pc.dim_or("hidden_size", 256);
  // SamPositionalEmbedding registers its random Fourier basis as a buffer; the prompt encoder's copy is tied
  // to the model's shared_image_embedding (the same module in older transformers, its own tied module in
  // newer), listed in the state dict under both names.
  t.tie(p + "shared_embedding.positional_embedding", "shared_image_embedding.positional_embedding").kind =
      TensorKind::Buffer;
  sam_mask_embedding(pc, t, p + "mask_embed.", h);
  blocks::embedding(t, p + "no_mask_embed.weight", 1, h);
  const uint64_t points = pc.count_or("num_point_embeddings", 4);
  if (point_table) {
    blocks::embedding(t, p + "point_embed.weight", points, h);
  } else {
    for (uint64_t i = 0; i < points; ++i)
      blocks::embedding(t, p + "point_embed." + std::to_string(i) + ".weight", 1, h);
  }
  blocks::embedding(t, p + "not_a_point_embed.weight", 1, h);
}

void sam_model_modules(const ModelConfig& cfg, const std::string& cls, ModelTemplate& t) {
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  const SamShape s = read_sam_shape(vision);
  sam_record(s, cls, t.arch);
  // SamPositionalEmbedding(vision_config): a persistent [2, num_pos_feats] buffer, registered first.
  t.add("shared_image_embedding.positional_embedding", {2, vision.dim_or("num_pos_feats", 128)}).kind =
      TensorKind::Buffer;
  sam_vision_encoder(s, "vision_encoder.", false, t);
  sam_prompt_encoder(sub_or_empty(cfg, "prompt_encoder_config"), t, false);
  sam_mask_decoder(sub_or_empty(cfg, "mask_decoder_config"), t);
}

void build_sam(const ModelConfig& cfg, ModelTemplate& t) {
  sam_model_modules(cfg, "SamModel", t);
}

}  // namespace ma::families
