// Sam2VideoModel (model_type sam2_video; the facebook/sam2.1-hiera-* checkpoints hold its weights):
// Sam2Model's image modules (sam2_model.cpp) plus what tracking an object through frames takes: a memory
// attention that lets the current frame's features attend, with 2-D RoPE, to the memories of earlier frames;
// a memory encoder that fuses a predicted mask into the frame's features to make such a memory; the head that
// turns a mask token into an object pointer, and the learned tokens standing in for a missing memory or
// object. Sam2VideoConfig's defaults are SAM 2.1 Hiera-T's (the four checkpoints share every memory size).
#include <cmath>
#include <string>

#include "model/blocks.h"
#include "model/families/sam2.h"
#include "model/families/segment_anything.h"

namespace ma::families {
namespace {

// Sam2VideoRoPEAttention: q from the width, k and v from `kv` channels, into width / downsample rate.
void sam2_rope_attention(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t internal,
                         uint64_t kv) {
  blocks::linear(t, p + "q_proj", hidden, internal, true);
  blocks::linear(t, p + "k_proj", kv, internal, true);
  blocks::linear(t, p + "v_proj", kv, internal, true);
  blocks::linear(t, p + "o_proj", internal, hidden, true);
}

// Sam2VideoMemoryAttention under memory_attention.: pre-norm layers of RoPE self-attention, RoPE
// cross-attention to the memories and a two-Linear MLP, then a LayerNorm. Its cos / sin tables are
// non-persistent buffers, outside the state dict.
void sam2_memory_attention(const ModelConfig& cfg, ModelTemplate& t) {
  const uint64_t h = cfg.dim_or("memory_attention_hidden_size", 256);
  const uint64_t rate = cfg.dim_or("memory_attention_downsample_rate", 1);
  const uint64_t heads = cfg.dim_or("memory_attention_num_attention_heads", 1);
  // Sam2VideoVisionRotaryEmbedding splits each head's width over two axes of cos / sin pairs.
  if ((h / (rate * heads)) % 4 != 0)
    cfg.fail(
        "memory_attention_num_attention_heads",
        "must leave a head width (memory_attention_hidden_size / (downsample rate x heads)) divisible by 4 "
        "for the axial RoPE");
  const uint64_t ffn = cfg.dim_or("memory_attention_feed_forward_hidden_size", 2048);
  const uint64_t layers = cfg.layers_or("memory_attention_num_layers", 4);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = "memory_attention.layers." + std::to_string(i) + ".";
    sam2_rope_attention(t, l + "self_attn.", h, h / rate, h);
    // The memories' width is 64 whatever memory_encoder_output_channels says (kv_in_dim=64 in transformers,
    // as in segment-anything-2's configs).
    sam2_rope_attention(t, l + "cross_attn_image.", h, h / rate, 64);
    blocks::linear(t, l + "linear1", h, ffn, true);
    blocks::linear(t, l + "linear2", ffn, h, true);
    for (const char* norm : {"layer_norm1", "layer_norm2", "layer_norm3"}) blocks::norm(t, l + norm, h, true);
  }
  blocks::norm(t, "memory_attention.layer_norm", h, true);
}

// Sam2VideoMemoryEncoder under memory_encoder.: the mask downsampler (strided convolutions, each
// multiplying the channels by stride^2, with channels-first LayerNorms, then a 1 x 1 convolution to
// mask_downsampler_embed_dim), a 1 x 1 projection of the frame's features, the fuser's ConvNeXt blocks and a
// 1 x 1 convolution down to memory_encoder_output_channels.
void sam2_memory_encoder(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string p = "memory_encoder.";
  const uint64_t stride = cfg.dim_or("mask_downsampler_stride", 2);
  const uint64_t total = cfg.dim_or("mask_downsampler_total_stride", 16);
  const uint64_t kernel = cfg.dim_or("mask_downsampler_kernel_size", 3);
  if (stride < 2) cfg.fail("mask_downsampler_stride", "must be at least 2 (log2(stride) divides)");
  // int(math.log2(total_stride) // math.log2(stride)): Python's float floor division, computed from fmod as
  // CPython does.
  const double num = std::log2(static_cast<double>(total)), den = std::log2(static_cast<double>(stride));
  const double div = (num - std::fmod(num, den)) / den;
  double floored = std::floor(div);
  if (div - floored > 0.5) floored += 1.0;
  const auto steps = static_cast<uint64_t>(floored);
  uint64_t in = 1, out = 1;
  for (uint64_t i = 0; i < steps; ++i, in = out) {
    out = in * stride * stride;
    if (out > ModelConfig::kMaxValue) cfg.fail("mask_downsampler_total_stride", "gives too many channels");
    const std::string l = p + "mask_downsampler.layers." + std::to_string(i) + ".";
    blocks::conv2d(t, l + "conv", in, out, kernel);
    blocks::norm(t, l + "layer_norm", out, true);
  }
  blocks::conv2d(t, p + "mask_downsampler.final_conv", out, cfg.dim_or("mask_downsampler_embed_dim", 256), 1);
  const uint64_t h = cfg.dim_or("memory_encoder_hidden_size", 256);
  blocks::conv2d(t, p + "feature_projection", h, h, 1);
  const uint64_t fuser = cfg.dim_or("memory_fuser_embed_dim", 256);
  const uint64_t fuser_mlp = cfg.dim_or("memory_fuser_intermediate_dim", 1024);
  const uint64_t fuser_kernel = cfg.dim_or("memory_fuser_kernel_size", 7);
  const uint64_t fuser_layers = cfg.layers_or("memory_fuser_num_layers", 2, 0);
  for (uint64_t i = 0; i < fuser_layers; ++i) {
    const std::string l = p + "memory_fuser.layers." + std::to_string(i) + ".";
    t.add(l + "scale", {fuser});  // the block's own layer scale, before its modules
    blocks::conv2d(t, l + "depthwise_conv", fuser, fuser, fuser_kernel, fuser);
    blocks::norm(t, l + "layer_norm", fuser, true);
    blocks::linear(t, l + "pointwise_conv1", fuser, fuser_mlp, true);
    blocks::linear(t, l + "pointwise_conv2", fuser_mlp, fuser, true);
  }
  blocks::conv2d(t, p + "projection", h, cfg.dim_or("memory_encoder_output_channels", 64), 1);
}

}  // namespace

void sam2_video_parameters(const ModelConfig& cfg, uint64_t h, ModelTemplate& t) {
  const uint64_t memory = cfg.dim_or("memory_encoder_output_channels", 64);
  // The model's own parameters first, in the order __init__ sets them: the no-memory token and its position,
  // one temporal position per memory slot, the no-object pointer, and (SAM 2.1) the occlusion embedding,
  // which __init__ first sets to None, so it is registered last.
  t.add("no_memory_embedding", {1, 1, h});
  t.add("no_memory_positional_encoding", {1, 1, h});
  t.add("memory_temporal_positional_encoding", {cfg.dim_or("num_maskmem", 7), 1, 1, memory});
  t.add("no_object_pointer", {1, h});
  const bool occlusion = cfg.flag_or("enable_occlusion_spatial_embedding", true);
  if (occlusion) t.add("occlusion_spatial_embedding_parameter", {1, memory});
}

void sam2_video_memory_modules(const ModelConfig& cfg, uint64_t h, ModelTemplate& t) {
  const uint64_t memory = cfg.dim_or("memory_encoder_output_channels", 64);
  sam2_memory_attention(cfg, t);
  sam2_memory_encoder(cfg, t);
  // A 4 x 4, stride-4 convolution bringing a mask prompt to the decoder's low-resolution logits.
  blocks::conv2d(t, "mask_downsample", 1, 1, 4);
  sam_feed_forward(t, "object_pointer_proj.", h, h, h, 3);
  // An nn.Identity unless enable_temporal_pos_encoding_for_object_pointers (SAM 2.1).
  if (cfg.flag_or("enable_temporal_pos_encoding_for_object_pointers", true))
    blocks::linear(t, "temporal_positional_encoding_projection_layer", h, memory, true);
}

void build_sam2_video(const ModelConfig& cfg, ModelTemplate& t) {
  const uint64_t h = sam2_vision_config(cfg).dim_or("fpn_hidden_size", 256);
  sam2_video_parameters(cfg, h, t);
  sam2_image_modules(cfg, "Sam2VideoModel", t);
  sam2_video_memory_modules(cfg, h, t);
}

}  // namespace ma::families
