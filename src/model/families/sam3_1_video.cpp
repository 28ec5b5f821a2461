// Sam3_1VideoModel (model_type sam3_1_video; facebook/sam3.1's multiplex tracker, converted by
// convert_sam3_1_video_to_hf.py, which drops the checkpoint's detector heads): SAM 3's ViT (sam3_vision.cpp)
// under three FPN necks of SAM 3's levels (one each for SAM 3's detector, the interactive decoder and the
// propagation decoder), a memory attention whose layers add image-side projections to their cross-attention,
// a memory encoder over the masks of `multiplex_count` objects at once, SAM 2's prompt encoder and mask
// decoder (sam2_model.cpp) for interactive prompts, and a multiplex mask decoder whose tokens come in one set
// per object slot. The checkpoint stores the modules' own names.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam2.h"
#include "model/families/sam3.h"
#include "model/families/segment_anything.h"

namespace ma::families {
namespace {

// Sam3_1MLP under `p`: `layers` Linears in `layers.i`, in -> hidden ... hidden -> out.
void sam3_1_mlp(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden, uint64_t out,
                uint64_t layers) {
  for (uint64_t i = 0; i < layers; ++i)
    blocks::linear(t, p + "layers." + std::to_string(i), i == 0 ? in : hidden, i + 1 == layers ? out : hidden,
                   true);
}

// The vision_config Sam3_1VideoConfig builds: a Sam3VisionConfig whose scale_factors default to three levels
// ([4.0, 2.0, 1.0], set when the key is absent) rather than Sam3VisionConfig's four.
std::vector<double> sam3_1_scale_factors(const ModelConfig& vision) {
  if (vision.raw("scale_factors") == nullptr) return {4.0, 2.0, 1.0};
  return sam3_scale_factors(vision);  // null: Sam3VisionConfig's own default
}

// backbone.vision_backbone (Sam3_1TriVisionNeck): the trunk, then the three necks, each a copy of `convs`.
void sam3_1_tri_vision_neck(const ModelConfig& cfg, ModelTemplate& t) {
  const ModelConfig vision = sub_or_empty(cfg, "vision_config");
  if (const std::string type = vision.string_or("model_type", "sam3_vision_model");
      type != "sam3_vision_model")
    unsupported(cfg, "SAM 3.1 with the image encoder " + printable(type) + " (vision_config.model_type)");
  const ModelConfig backbone = sub_or_empty(vision, "backbone_config");
  if (const std::string type = backbone.string_or("model_type", "sam3_vit_model"); type != "sam3_vit_model")
    unsupported(cfg,
                "SAM 3.1 with the backbone " + printable(type) + " (" + backbone.path() + ".model_type)");
  const std::string p = "backbone.vision_backbone.";
  sam3_vit(backbone, p + "trunk.", t);
  const std::vector<double> scales = sam3_1_scale_factors(vision);
  for (const char* neck : {"convs.", "interactive_convs.", "propagation_convs."})
    sam3_fpn_levels(vision, scales, p + neck, t);
}

// transformer.encoder (Sam3_1TransformerEncoderDecoupledCrossAttention): pre-norm layers whose
// cross-attention adds projections of the image and of the memory image to its queries and keys, then a
// LayerNorm. Its width is the prompt encoder's hidden_size, its MLP
// memory_attention_feed_forward_hidden_size.
void sam3_1_memory_transformer(const ModelConfig& cfg, uint64_t h, ModelTemplate& t) {
  const uint64_t ffn = cfg.dim_or("memory_attention_feed_forward_hidden_size", 2048);
  const uint64_t layers = cfg.layers_or("memory_attention_num_layers", 4);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = "transformer.encoder.layers." + std::to_string(i) + ".";
    for (const char* proj : {"self_attn_q_proj", "self_attn_k_proj", "self_attn_v_proj", "self_attn_out_proj",
                             "cross_attn_q_proj", "cross_attn_k_proj", "cross_attn_v_proj",
                             "cross_attn_out_proj", "image_cross_attn_q_proj", "image_cross_attn_k_proj"})
      blocks::linear(t, l + proj, h, h, true);
    blocks::linear(t, l + "linear1", h, ffn, true);
    blocks::linear(t, l + "linear2", ffn, h, true);
    for (const char* norm : {"norm1", "norm2", "norm3"}) blocks::norm(t, l + norm, h, true);
  }
  blocks::norm(t, "transformer.encoder.norm", h, true);
}

// maskmem_backbone (Sam3_1SimpleMaskEncoder): a mask downsampler over two channels per object slot (strided
// convolutions multiplying 4 channels by stride^2 each step, channels-first LayerNorms, a 1 x 1 convolution
// to the hidden width), a 1 x 1 projection of the frame's features and ConvNeXt blocks (4x MLP whatever
// memory_fuser_intermediate_dim says).
void sam3_1_memory_encoder(const ModelConfig& cfg, uint64_t h, uint64_t slots, ModelTemplate& t) {
  const std::string p = "maskmem_backbone.";
  const uint64_t stride = cfg.dim_or("mask_downsampler_stride", 2);
  const uint64_t total = cfg.dim_or("mask_downsampler_total_stride", 16);
  const uint64_t kernel = cfg.dim_or("mask_downsampler_kernel_size", 3);
  if (stride < 2) cfg.fail("mask_downsampler_stride", "must be at least 2 (a logarithm's base)");
  // int(math.log(total_stride, stride)), then a ValueError unless stride ** that == total_stride.
  const auto steps =
      static_cast<uint64_t>(std::log(static_cast<double>(total)) / std::log(static_cast<double>(stride)));
  uint64_t power = 1;
  for (uint64_t i = 0; i < steps && power <= total; ++i) power *= stride;
  if (power != total) cfg.fail("mask_downsampler_total_stride", "must be a power of mask_downsampler_stride");
  uint64_t in = 2 * slots, out = 4;  // input_channel_multiplier=2, starting_out_chan=4
  for (uint64_t i = 0; i < steps; ++i, in = out) {
    out *= stride * stride;
    const std::string l = p + "mask_downsampler.encoder.";
    blocks::conv2d(t, l + std::to_string(3 * i), in, out, kernel);
    blocks::norm(t, l + std::to_string(3 * i + 1), out, true);  // 3 * i + 2 is the GELU
  }
  blocks::conv2d(t, p + "mask_downsampler.encoder." + std::to_string(3 * steps), out, h, 1);
  blocks::conv2d(t, p + "pix_feat_proj", h, h, 1);
  const uint64_t kernel_fuser = cfg.dim_or("memory_fuser_kernel_size", 7);
  for (uint64_t i = 0, n = cfg.layers_or("memory_fuser_num_layers", 2); i < n; ++i) {
    const std::string l = p + "fuser.layers." + std::to_string(i) + ".";
    t.add(l + "gamma", {h});  // the block's own parameter, before its modules'
    t.add(l + "dwconv.weight", {h, 1, kernel_fuser, kernel_fuser});
    t.add(l + "dwconv.bias", {h});
    blocks::norm(t, l + "norm", h, true);
    blocks::linear(t, l + "pwconv1", h, 4 * h, true);
    blocks::linear(t, l + "pwconv2", 4 * h, h, true);
  }
}

// interactive_sam_prompt_encoder and interactive_sam_mask_decoder: SAM 3's tracker's (SAM 2's) prompt
// encoder and mask decoder under SAM 3.1's names. The prompt encoder's positional basis is its own buffer
// here: the model has no shared_image_embedding to tie it to.
void sam3_1_interactive_decoders(const ModelConfig& cfg, ModelTemplate& t) {
  ModelTemplate inner;
  sam2_shared_image_embedding(cfg, inner);  // the tie's target, dropped below
  sam2_prompt_and_mask_decoders(cfg, inner);
  t.charge(inner.entries);
  for (TemplateTensor& x : inner.tensors) {
    if (x.name.starts_with("shared_image_embedding.")) continue;
    x.name = "interactive_sam_" + x.name;  // prompt_encoder. and mask_decoder.
    if (!x.tied_to.empty()) {
      x.tied_to.clear();
      x.stored = true;
    }
    t.tensors.push_back(std::move(x));
  }
}

// sam_mask_decoder (Sam3_1MultiplexMaskDecoder): SAM 2's two-way transformer first (registered before the
// tokens), IoU and object-score tokens per slot, mask tokens per slot and output, the upscaling, the
// high-resolution convolutions, one hypernetwork MLP per output, the IoU head and the object-score head.
void sam3_1_multiplex_mask_decoder(const ModelConfig& cfg, uint64_t h, uint64_t slots, ModelTemplate& t) {
  const std::string p = "sam_mask_decoder.";
  // Its transformer (Sam3_1MaskDecoderTransformer) is built from mask_decoder_config, everything else from
  // the prompt encoder's hidden_size.
  const ModelConfig d = sub_or_empty(cfg, "mask_decoder_config");
  if (h < 8)
    cfg.fail("prompt_encoder_config.hidden_size", "must be at least 8 (the upscaling ends at h // 8)");
  sam2_two_way_transformer(d, t, p + "transformer.inner.");
  const uint64_t outputs = cfg.count_or("num_multimask_outputs", 3);
  const bool outputs_only = outputs > 0 && cfg.flag_or("multimask_output_in_sam", true);
  const uint64_t per_object = outputs_only ? outputs : outputs + 1;
  const bool shared_tokens = cfg.flag_or("decode_mask_with_shared_tokens", false);
  const bool shared_attributes = cfg.flag_or("decode_mask_attribute_with_shared_tokens", false);
  const bool object_scores = cfg.flag_or("pred_obj_scores", true);
  if (!shared_attributes) {
    blocks::embedding(t, p + "iou_token.weight", slots, h);
    if (object_scores) blocks::embedding(t, p + "obj_score_token.weight", slots, h);
  }
  blocks::embedding(t, p + "mask_tokens.weight", shared_tokens ? slots : slots * per_object, h);
  sam_upscale_conv(t, p + "output_upscaling.0", h, h / 4);
  blocks::norm(t, p + "output_upscaling.1", h / 4, true);  // 2 is a GELU
  sam_upscale_conv(t, p + "output_upscaling.3", h / 4, h / 8);
  if (cfg.flag_or("use_high_res_features_in_sam", true)) {
    blocks::conv2d(t, p + "conv_s0", h, h / 8, 1);
    blocks::conv2d(t, p + "conv_s1", h, h / 4, 1);
  }
  if (outputs == 0) {
    sam3_1_mlp(t, p + "output_hypernetworks_mlp.", h, h, h / 8, 3);
  } else {
    for (uint64_t i = 0; i < per_object; ++i)
      sam3_1_mlp(t, p + "output_hypernetworks_mlps." + std::to_string(i) + ".", h, h, h / 8, 3);
  }
  const uint64_t iou_out = shared_attributes && !shared_tokens ? 1 : per_object;
  sam3_1_mlp(t, p + "iou_prediction_head.", h, d.dim_or("iou_head_hidden_dim", 256), iou_out,
             d.layers_or("iou_head_depth", 3));
  if (object_scores) {
    if (cfg.flag_or("pred_obj_scores_mlp", true))
      sam3_1_mlp(t, p + "pred_obj_score_head.", h, h, 1, 3);
    else
      blocks::linear(t, p + "pred_obj_score_head", h, 1, true);
  }
}

}  // namespace

void build_sam3_1_video(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Sam3_1VideoModel";
  const uint64_t h = sub_or_empty(cfg, "prompt_encoder_config").dim_or("hidden_size", 256);
  const uint64_t slots = cfg.dim_or("multiplex_count", 16);
  // The model's own parameters come before its modules', in the order __init__ sets them.
  t.add("maskmem_tpos_enc", {cfg.dim_or("num_maskmem", 7), 1, 1, h});
  t.add("interactivity_no_mem_embed", {1, 1, h});
  const bool no_obj_ptr = cfg.flag_or("use_no_obj_ptr", true);
  const bool linear_no_obj_ptr = cfg.flag_or("use_linear_no_obj_ptr", true);
  if (no_obj_ptr && !linear_no_obj_ptr) t.add("no_obj_ptr", {slots, h});
  for (const char* own : {"output_valid_embed", "output_invalid_embed", "no_obj_embed_spatial"})
    t.add(own, {slots, h});
  if (cfg.flag_or("add_object_conditional_embeddings", false)) {
    t.add("obj_cond_embed", {slots, h});
    // None (the default) counts as True.
    if (cfg.flag_or("add_object_unconditional_embeddings", true)) t.add("obj_non_cond_embed", {slots, h});
  }

  sam3_1_tri_vision_neck(cfg, t);
  standalone_tower_dims(t, StackRole::Vision);  // the record's dimensions are the ViT's
  sam3_1_memory_transformer(cfg, h, t);
  sam3_1_memory_encoder(cfg, h, slots, t);
  // Sam3_1RandomPositionEmbedding: a persistent [2, hidden // 2] buffer.
  t.add("image_pe_layer.positional_encoding_gaussian_matrix", {2, h / 2}).kind = TensorKind::Buffer;
  sam3_1_interactive_decoders(cfg, t);
  sam3_1_multiplex_mask_decoder(cfg, h, slots, t);
  blocks::conv2d(t, "interactive_mask_downsample", 1, 1, 4);
  if (no_obj_ptr && linear_no_obj_ptr) blocks::linear(t, "no_obj_ptr_linear", h, h, true);
  if (cfg.flag_or("use_obj_ptrs_in_encoder", true)) {
    const bool mlp = cfg.flag_or("use_mlp_for_obj_ptr_proj", true);
    for (const char* proj : {"obj_ptr_proj", "interactive_obj_ptr_proj"}) {
      if (mlp)
        sam3_1_mlp(t, std::string(proj) + ".", h, h, h, 3);
      else
        blocks::linear(t, proj, h, h, true);
    }
  }
  if (cfg.flag_or("enable_temporal_pos_encoding_for_object_pointers", true))
    blocks::linear(t, "obj_ptr_tpos_proj", h, h, true);
}

}  // namespace ma::families
