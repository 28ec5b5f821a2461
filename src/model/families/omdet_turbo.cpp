// OmDet-Turbo (model_type omdet-turbo; omlab/omdet-turbo-swin-tiny-hf): an open-vocabulary detector.
// OmDetTurboForObjectDetection registers, in order: vision_backbone (a Swin Transformer, timm's by default
// (omdet_turbo_timm_swin.cpp) or transformers' SwinBackbone from backbone_config, then a LayerNorm per
// encoder_in_channels entry), language_backbone (AutoModel of text_config, CLIP's text tower, then a bare
// text_projection matrix), encoder (OmDetTurboHybridEncoder: 1 x 1 channel projections, AIFI layers over the
// encoder_projection_indices levels, RT-DETR's CCFM neck) and decoder (OmDetTurboDecoder: channel
// projections, a task encoder over the prompt's features, deformable decoder layers whose self-attention
// also reads the task tokens, the encoder's query-selection heads and per-layer class and box heads).
// The class heads project class_embed_dim text embeddings to decoder_hidden_dim: no num_labels anywhere.
#include <string>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/seg_heads.h"

namespace ma::families {
namespace {

// OmDetTurboMultiheadAttention (query, key, value, out_proj) and the encoder layer's norms and FFN.
LayerNames omdet_encoder_layer_names() {
  LayerNames n;
  n.q = "self_attn.query";
  n.k = "self_attn.key";
  n.v = "self_attn.value";
  n.o = "self_attn.out_proj";
  n.attn_norm = "self_attn_layer_norm";
  n.fc1 = "fc1";
  n.fc2 = "fc2";
  n.ffn_norm = "final_layer_norm";
  return n;
}

// OmDetTurboVisionBackbone under `prefix`: load_backbone's Swin, then layer_norms (built whether or not
// apply_layernorm_after_vision_backbone uses them), and the vision stack in the record.
void omdet_vision_backbone(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const std::string backbone = prefix + "vision_backbone.";
  uint64_t width = 0;
  if (cfg.flag_or("use_timm_backbone", true)) {
    if (cfg.has("backbone_config"))
      cfg.fail("backbone_config",
               "must be absent with use_timm_backbone (the backbone is the timm model named)");
    if (!cfg.has("backbone") && cfg.raw("backbone") != nullptr)
      cfg.fail("backbone", "must name a timm model with use_timm_backbone");
    // OmDetTurboConfig replaces backbone_kwargs with its own when backbone_config is absent: stages 1 to 3,
    // img_size image_size, always_partition.
    const std::vector<uint64_t> channels =
        omdet_timm_swin_backbone(cfg, cfg.string_or("backbone", "swin_tiny_patch4_window7_224"), {1, 2, 3},
                                 cfg.dim_or("image_size", 640), true, backbone + "_backbone.", t);
    width = channels.back();
    t.arch.add_stack(StackRole::Vision, backbone + "_backbone", width);
  } else {
    // OmDetTurboConfig's default backbone_config: Swin-T (window 7) handing on stages 2 to 4.
    const ModelConfig bb = sub_or(cfg, "backbone_config",
                                  R"({"model_type":"swin","window_size":7,"embed_dim":96,"depths":[2,2,6,2],)"
                                  R"("num_heads":[3,6,12,24],"out_indices":[2,3,4]})");
    if (bb.string_or("model_type", "") != "swin")
      bb.fail("model_type", "must be swin: the only OmDet-Turbo backbone_config this analysis builds");
    width = swin_backbone(bb, backbone, SwinBackboneKind::Swin, t).back();
    t.arch.add_stack(StackRole::Vision, backbone + "encoder.layers", width);
  }
  const std::vector<uint64_t> in = cfg.dims_or("encoder_in_channels", {192, 384, 768});
  for (size_t i = 0; i < in.size(); ++i)
    blocks::norm(t, prefix + "layer_norms." + std::to_string(i), in[i], true);
}

// OmDetTurboLanguageBackbone under `prefix`: AutoModel.from_config(text_config), then text_projection.
void omdet_language_backbone(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const ModelConfig text = sub_or(cfg, "text_config", R"({"model_type":"clip_text_model"})");
  // OmDetTurboConfig looks text_config's class up by its model_type: it must name one.
  if (!text.has("model_type")) text.fail("model_type", "must name the text model's config class");
  if (text.string_or("model_type", "") != "clip_text_model")
    unsupported(cfg, "OmDet-Turbo with a " + printable(text.string_or("model_type", "")) + " text model");
  // A parameter of the module itself: named_parameters lists it before the submodule's, though created after.
  t.add(prefix + "text_projection",
        {cfg.dim_or("text_projection_in_dim", 512), cfg.dim_or("text_projection_out_dim", 512)});
  clip_text_tower(text, prefix + "model.text_model.", false, t);
}

// OmDetTurboHybridEncoder under `prefix`. Returns its AIFI stack.
StackDims omdet_hybrid_encoder(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const uint64_t width = cfg.dim_or("encoder_hidden_dim", 256);
  const std::vector<uint64_t> in = cfg.dims_or("encoder_in_channels", {192, 384, 768});
  if (in.empty()) cfg.fail("encoder_in_channels", "must list at least one feature level");
  // Conv2d(in, width, 1, bias=False) and a trainable BatchNorm2d per level.
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string p = prefix + "channel_projection_layers." + std::to_string(i) + ".";
    detr_conv_norm(t, p + "0", p + "1", in[i], width, 1, false);
  }
  StackDims aifi;
  aifi.layers = cfg.count_or("encoder_layers", 1);
  aifi.layer.hidden = width;
  aifi.layer.heads = cfg.dim_or("encoder_attention_heads", 8);
  aifi.layer.ffn = cfg.dim_or("encoder_dim_feedforward", 2048);
  split_heads(cfg, "encoder_attention_heads", width, aifi.layer.heads);
  // One OmDetTurboEncoder per encoder_projection_indices entry (its default [2]: the deepest level).
  const size_t aifi_levels =
      cfg.raw("encoder_projection_indices") != nullptr ? cfg.ints("encoder_projection_indices").size() : 1;
  for (size_t i = 0; i < aifi_levels; ++i)
    for (uint64_t l = 0; l < aifi.layers; ++l)
      transformer_layer(t, prefix + "encoder." + std::to_string(i) + ".layers." + std::to_string(l),
                        omdet_encoder_layer_names(), aifi.layer);
  rt_detr_ccfm_neck(cfg, prefix, t);
  return aifi;
}

// OmDetTurboDeformableTransformerDecoderLayer under `p`. Its cross-attention is sized by config.d_model,
// which OmDetTurboConfig maps to encoder_hidden_dim (`encoder_width`), not by decoder_hidden_dim.
void omdet_decoder_layer(ModelTemplate& t, const std::string& p, const LayerDims& l, uint64_t encoder_width,
                         uint64_t levels, uint64_t points) {
  const uint64_t d = l.hidden;
  for (const char* proj : {"query", "key", "value", "out_proj"})
    blocks::linear(t, p + "self_attn." + proj, d, d, true);
  blocks::norm(t, p + "norm1", d, true);
  detr_deformable_attention(t, p + "cross_attn.", encoder_width, l.heads, levels, points);
  blocks::norm(t, p + "norm2", d, true);
  blocks::linear(t, p + "linear1", d, l.ffn, true);
  blocks::linear(t, p + "linear2", l.ffn, d, true);
  blocks::norm(t, p + "norm3", d, true);
}

// OmDetTurboDecoder under `prefix`. Returns its stack.
StackDims omdet_decoder(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const uint64_t h = cfg.dim_or("decoder_hidden_dim", 256);
  const uint64_t class_dim = cfg.dim_or("class_embed_dim", 512);
  const uint64_t encoder_width = cfg.dim_or("encoder_hidden_dim", 256);
  StackDims dec;
  dec.layers = cfg.count_or("decoder_num_layers", 6);
  dec.layer.hidden = h;
  dec.layer.heads = cfg.dim_or("decoder_num_heads", 8);
  dec.layer.ffn = cfg.dim_or("decoder_dim_feedforward", 2048);
  split_heads(cfg, "decoder_num_heads", h, dec.layer.heads);
  // The deformable attention refuses a d_model (encoder_hidden_dim) its heads do not divide.
  split_heads(cfg, "decoder_num_heads", encoder_width, dec.layer.heads);

  const std::vector<uint64_t> vision = cfg.dims_or("vision_features_channels", {256, 256, 256});
  for (size_t i = 0; i < vision.size(); ++i) {
    const std::string p = prefix + "channel_projection_layers." + std::to_string(i) + ".";
    detr_conv_norm(t, p + "0", p + "1", vision[i], h, 1, false);
  }
  // OmDetTurboTaskEncoder: an MLP through task_encoder_hidden_dim and a residual LayerNorm.
  const uint64_t task_hidden = cfg.dim_or("task_encoder_hidden_dim", 1024);
  blocks::linear(t, prefix + "task_encoder.mlp.linear1", class_dim, task_hidden, true);
  blocks::linear(t, prefix + "task_encoder.mlp.linear2", task_hidden, class_dim, true);
  blocks::norm(t, prefix + "task_encoder.res1.norm1", class_dim, true);
  if (class_dim != h) blocks::linear(t, prefix + "task_project", class_dim, h, true);

  const uint64_t levels = cfg.dim_or("num_feature_levels", 3), points = cfg.dim_or("decoder_num_points", 4);
  for (uint64_t i = 0; i < dec.layers; ++i)
    omdet_decoder_layer(t, prefix + "layers." + std::to_string(i) + ".", dec.layer, encoder_width, levels,
                        points);
  if (cfg.flag_or("learn_initial_query", false))
    blocks::embedding(t, prefix + "tgt_embed.weight", cfg.dim_or("num_queries", 900), h);
  rt_detr_prediction_head(t, prefix + "query_position_head.", 4, 2 * h, h, 2);
  // The encoder's query selection: its features, class projection and boxes.
  blocks::linear(t, prefix + "encoder_vision_features.0", h, h, true);
  blocks::norm(t, prefix + "encoder_vision_features.1", h, true);
  blocks::linear(t, prefix + "encoder_class_head", class_dim, h, true);
  rt_detr_prediction_head(t, prefix + "encoder_bbox_head.", h, h, 4, 3);
  for (uint64_t i = 0; i < dec.layers; ++i)
    blocks::linear(t, prefix + "decoder_class_head." + std::to_string(i), class_dim, h, true);
  for (uint64_t i = 0; i < dec.layers; ++i)
    rt_detr_prediction_head(t, prefix + "decoder_bbox_head." + std::to_string(i) + ".", h, h, 4, 3);
  return dec;
}

}  // namespace

void build_omdet_turbo(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "OmDetTurboForObjectDetection");
  supported_task(cfg, cls, "OmDetTurbo", {"ForObjectDetection"});
  t.arch.architecture = cls;
  const std::string distance = cfg.string_or("class_distance_type", "cosine");
  if (distance != "cosine" && distance != "dot") cfg.fail("class_distance_type", "must be cosine or dot");

  omdet_vision_backbone(cfg, "vision_backbone.", t);
  omdet_language_backbone(cfg, "language_backbone.", t);
  const StackDims aifi = omdet_hybrid_encoder(cfg, "encoder.", t);
  const StackDims dec = omdet_decoder(cfg, "decoder.", t);

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;  // the Swin backbone's record names its own class
  a.post_norm = true;
  a.norm = NormKind::LayerNorm;
  a.activation = cfg.string_or("decoder_activation", "relu");
  a.position = PositionKind::Sinusoidal;  // the AIFI's 2-D sine table; the decoder's come from its boxes
  a.attention_bias = a.mlp_bias = true;
  describe_stack(t, StackRole::Encoder, "encoder.encoder.0.layers", aifi,
                 aifi.layer.hidden / aifi.layer.heads);
  describe_stack(t, StackRole::Decoder, "decoder.layers", dec, dec.layer.hidden / dec.layer.heads);
  describe_main(t, dec, 0);
}

}  // namespace ma::families
