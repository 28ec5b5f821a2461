// RT-DETR (model_type rt_detr; PekingU/rtdetr_r18vd ... r101vd) and RT-DETR v2 (rt_detr_v2;
// PekingU/rtdetr_v2_r18vd ... r101vd): an RT-DETR ResNet with frozen batch norms (rt_detr_resnet.cpp), the
// hybrid encoder (rt_detr_encoder.cpp), a two-stage query selection over the encoder's tokens (enc_output,
// enc_score_head, enc_bbox_head) and a Deformable DETR decoder whose layers each own a classifier and a box
// head. v2 differs in the decoder's deformable attention (its own number of levels, a persistent
// n_points_scale buffer) and in where the heads live (below).
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {

void rt_detr_prediction_head(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden,
                             uint64_t out, uint64_t layers) {
  for (uint64_t i = 0; i < layers; ++i)
    blocks::linear(t, p + "layers." + std::to_string(i), i == 0 ? in : hidden, i + 1 == layers ? out : hidden,
                   true);
}

void rt_detr_query_selection(const ModelConfig& cfg, const std::string& prefix, uint64_t d,
                             ModelTemplate& t) {
  const uint64_t labels = num_labels(cfg);
  // The contrastive denoising queries' label table: the labels and a padding row.
  if (cfg.count_or("num_denoising", 100) > 0)
    blocks::embedding(t, prefix + "denoising_class_embed.weight", labels + 1, d);
  if (cfg.flag_or("learn_initial_query", false))
    blocks::embedding(t, prefix + "weight_embedding.weight", cfg.dim_or("num_queries", 300), d);
  // The encoder's head scores and boxes every token; the top num_queries seed the decoder.
  blocks::linear(t, prefix + "enc_output.0", d, d, true);
  blocks::norm(t, prefix + "enc_output.1", d, true);
  blocks::linear(t, prefix + "enc_score_head", d, labels, true);
  rt_detr_prediction_head(t, prefix + "enc_bbox_head.", d, d, 4, 3);
}

void describe_rt_detr(const ModelConfig& cfg, const std::string& prefix, uint64_t backbone_width,
                      const StackDims& aifi, const StackDims& dec, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.add_stack(StackRole::Vision, prefix + "backbone.model", backbone_width);
  a.post_norm = !cfg.flag_or("normalize_before", false);
  a.norm = NormKind::LayerNorm;
  a.activation = cfg.string_or("decoder_activation_function", "relu");
  a.position = PositionKind::Sinusoidal;  // AIFI's 2-D sine table; the decoder's come from its boxes
  a.attention_bias = a.mlp_bias = true;
  const uint64_t width = aifi.layer.hidden, d = dec.layer.hidden;
  describe_stack(t, StackRole::Encoder, prefix + "encoder.encoder.0.layers", aifi, width / aifi.layer.heads);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", dec, d / dec.layer.heads);
  describe_main(t, dec, 0);
}

void rt_detr_tie_heads_to_decoder(ModelTemplate& t) {
  const size_t heads_end = t.tensors.size();
  for (size_t i = 0; i < heads_end; ++i) {
    const std::string name = t.tensors[i].name;
    if (name.starts_with("model.decoder.class_embed.") || name.starts_with("model.decoder.bbox_embed."))
      t.tie(name.substr(std::string("model.decoder.").size()), name);
  }
}

namespace {

// RTDetrDecoderLayer (RTDetrV2DecoderLayer swaps its encoder_attn) under `p`: BART's self-attention,
// a deformable cross-attention over the feature levels, BART's FFN.
void rt_detr_decoder_layer(ModelTemplate& t, const std::string& p, const LayerDims& l, uint64_t levels,
                           uint64_t points, bool v2) {
  const uint64_t d = l.hidden;
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + "self_attn." + proj, d, d, true);
  blocks::norm(t, p + "self_attn_layer_norm", d, true);
  // v2's n_points_scale (1 / points, once per sampled point of every level) is a persistent buffer of the
  // attention module itself, so state_dict lists it before the module's linears.
  if (v2) t.add(p + "encoder_attn.n_points_scale", {levels * points}).kind = TensorKind::Buffer;
  detr_deformable_attention(t, p + "encoder_attn.", d, l.heads, levels, points);
  blocks::norm(t, p + "encoder_attn_layer_norm", d, true);
  blocks::linear(t, p + "fc1", d, l.ffn, true);
  blocks::linear(t, p + "fc2", l.ffn, d, true);
  blocks::norm(t, p + "final_layer_norm", d, true);
}

// RTDetrModel / RTDetrV2Model under `prefix` ("model." or ""); returns the decoder's dimensions.
StackDims rt_detr_model_body(const ModelConfig& cfg, const std::string& prefix, bool v2, ModelTemplate& t) {
  if (cfg.flag_or("use_timm_backbone", false))
    unsupported(cfg,
                "RT-DETR with a timm backbone (the Hub's checkpoints use an rt_detr_resnet backbone_config)");
  if (cfg.has("backbone") && !cfg.has("backbone_config"))
    unsupported(cfg,
                "RT-DETR with a backbone loaded by name (" + printable(cfg.string_or("backbone", "")) + ")");
  // RTDetrConfig's default backbone_config: a ResNet-50-vd handing on stages 2 to 4.
  const ModelConfig bb =
      sub_or(cfg, "backbone_config", R"({"model_type":"rt_detr_resnet","out_indices":[2,3,4]})");
  if (bb.string_or("model_type", "") != "rt_detr_resnet")
    bb.fail("model_type", "must be rt_detr_resnet: the only RT-DETR backbone this analysis builds");
  const std::vector<uint64_t> channels = rt_detr_resnet_backbone(
      bb, prefix + "backbone.model.", cfg.flag_or("freeze_backbone_batch_norms", true), t);

  const uint64_t width = cfg.dim_or("encoder_hidden_dim", 256);
  for (size_t i = 0; i < channels.size(); ++i)
    detr_conv_norm(t, prefix + "encoder_input_proj." + std::to_string(i) + ".0",
                   prefix + "encoder_input_proj." + std::to_string(i) + ".1", channels[i], width, 1, false);
  const StackDims aifi = rt_detr_hybrid_encoder(cfg, prefix + "encoder.", t);

  const uint64_t d = cfg.dim_or("d_model", 256);
  rt_detr_query_selection(cfg, prefix, d, t);

  // A 1 x 1 convolution per encoder level, then stride-2 3 x 3 ones for the extra levels (the first reading
  // the last listed level's channels, the others d_model).
  const std::vector<uint64_t> decoder_in = cfg.dims_or("decoder_in_channels", {256, 256, 256});
  const uint64_t feature_levels = cfg.dim_or("num_feature_levels", 3);
  if (decoder_in.empty()) cfg.fail("decoder_in_channels", "must list at least one feature level");
  uint64_t in = decoder_in.back();
  for (uint64_t i = 0; i < std::max<uint64_t>(feature_levels, decoder_in.size()); ++i) {
    const std::string p = prefix + "decoder_input_proj." + std::to_string(i) + ".";
    const bool extra = i >= decoder_in.size();
    detr_conv_norm(t, p + "0", p + "1", extra ? in : decoder_in[i], d, extra ? 3 : 1, false);
    if (extra) in = d;
  }

  const StackDims dec = read_stack(cfg, "decoder", d, 6, 8, 1024);
  // v1 samples num_feature_levels levels, v2 decoder_n_levels.
  const uint64_t levels = v2 ? cfg.dim_or("decoder_n_levels", 3) : feature_levels;
  const uint64_t points = cfg.dim_or("decoder_n_points", 4);
  for (uint64_t i = 0; i < dec.layers; ++i)
    rt_detr_decoder_layer(t, prefix + "decoder.layers." + std::to_string(i) + ".", dec.layer, levels, points,
                          v2);
  // The queries' positions: an MLP(4, 2 d_model, d_model, 2) of their reference boxes.
  rt_detr_prediction_head(t, prefix + "decoder.query_pos_head.", 4, 2 * d, d, 2);

  describe_rt_detr(cfg, prefix, channels.back(), aifi, dec, t);
  return dec;
}

void rt_detr_build(const ModelConfig& cfg, ModelTemplate& t, bool v2) {
  const std::string family = v2 ? "RTDetrV2" : "RTDetr";
  const std::string cls = architecture_of(cfg, family + "Model");
  const std::string task = supported_task(cfg, cls, family, {"Model", "ForObjectDetection"});
  t.arch.architecture = cls;
  if (task == "Model") {
    rt_detr_model_body(cfg, "", v2, t);
    return;
  }
  const StackDims dec = rt_detr_model_body(cfg, "model.", v2, t);
  const uint64_t d = dec.layer.hidden, labels = num_labels(cfg);
  // One classifier and one box head per decoder layer (box refinement), set on the decoder after it is
  // built: they follow its query_pos_head. RTDetrForObjectDetection keeps them there alone;
  // RTDetrV2ForObjectDetection also holds the same ModuleLists as its own class_embed and bbox_embed, which
  // state_dict lists again after the model (tied copies: counted and stored once, under model.decoder.).
  for (uint64_t i = 0; i < dec.layers; ++i)
    blocks::linear(t, "model.decoder.class_embed." + std::to_string(i), d, labels, true);
  for (uint64_t i = 0; i < dec.layers; ++i)
    rt_detr_prediction_head(t, "model.decoder.bbox_embed." + std::to_string(i) + ".", d, d, 4, 3);
  if (v2) rt_detr_tie_heads_to_decoder(t);
}

}  // namespace

void detr_deformable_attention(ModelTemplate& t, const std::string& p, uint64_t d_model, uint64_t heads,
                               uint64_t levels, uint64_t points) {
  blocks::linear(t, p + "sampling_offsets", d_model, heads * levels * points * 2, true);
  blocks::linear(t, p + "attention_weights", d_model, heads * levels * points, true);
  blocks::linear(t, p + "value_proj", d_model, d_model, true);
  blocks::linear(t, p + "output_proj", d_model, d_model, true);
}

void build_rt_detr(const ModelConfig& cfg, ModelTemplate& t) {
  rt_detr_build(cfg, t, false);
}

void build_rt_detr_v2(const ModelConfig& cfg, ModelTemplate& t) {
  rt_detr_build(cfg, t, true);
}

}  // namespace ma::families
