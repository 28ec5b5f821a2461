// Deformable DETR (model_type deformable_detr; SenseTime/deformable-detr, -with-box-refine,
// -with-box-refine-two-stage): DETR's frozen ResNet (detr_backbone.cpp) handing on stages 2 to 4, a 1 x 1
// convolution and GroupNorm per map plus a stride-2 one for a fourth level, and encoder and decoder layers
// whose attention over the image samples a few points per level (multi-scale deformable attention).
// Names are transformers 4's, those of the Hub checkpoints and of the repo's DETR (self_attn.out_proj, fc1).
//
// The per-layer heads follow transformers 4 and the original code (models/deformable_detr.py): without box
// refinement one classifier and one box MLP are shared by every decoder layer (the same module listed
// num_pred times: counted once, stored once as .0); with it, num_pred independent clones, the box heads also
// set on the decoder (model.decoder.bbox_embed, listed first); two-stage adds a head for the proposals
// (num_pred = decoder_layers + 1) and sets the classifiers on the decoder too.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// DeformableDetrEncoderLayer under `p`: deformable self-attention over every level, BART's FFN.
void deformable_detr_encoder_layer(ModelTemplate& t, const std::string& p, const LayerDims& l,
                                   uint64_t levels, uint64_t points) {
  detr_deformable_attention(t, p + "self_attn.", l.hidden, l.heads, levels, points);
  blocks::norm(t, p + "self_attn_layer_norm", l.hidden, true);
  blocks::linear(t, p + "fc1", l.hidden, l.ffn, true);
  blocks::linear(t, p + "fc2", l.ffn, l.hidden, true);
  blocks::norm(t, p + "final_layer_norm", l.hidden, true);
}

// DeformableDetrDecoderLayer under `p`: BART's self-attention, deformable cross-attention, BART's FFN.
void deformable_detr_decoder_layer(ModelTemplate& t, const std::string& p, const LayerDims& l,
                                   uint64_t levels, uint64_t points) {
  const uint64_t d = l.hidden;
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + "self_attn." + proj, d, d, true);
  blocks::norm(t, p + "self_attn_layer_norm", d, true);
  detr_deformable_attention(t, p + "encoder_attn.", d, l.heads, levels, points);
  blocks::norm(t, p + "encoder_attn_layer_norm", d, true);
  blocks::linear(t, p + "fc1", d, l.ffn, true);
  blocks::linear(t, p + "fc2", l.ffn, d, true);
  blocks::norm(t, p + "final_layer_norm", d, true);
}

// DeformableDetrMLPPredictionHead(d_model, d_model, 4, 3) under `p`.
void deformable_detr_box_head(ModelTemplate& t, const std::string& p, uint64_t d) {
  blocks::linear(t, p + "layers.0", d, d, true);
  blocks::linear(t, p + "layers.1", d, d, true);
  blocks::linear(t, p + "layers.2", d, 4, true);
}

struct DeformableDetrHeads {
  uint64_t count = 0;  // num_pred
  bool refine = false, two_stage = false;
};

// The heads the ForObjectDetection class sets on its decoder (after the decoder's layers: bbox_embed first).
void deformable_detr_decoder_heads(ModelTemplate& t, const std::string& prefix, uint64_t d, uint64_t labels,
                                   const DeformableDetrHeads& h) {
  if (h.refine)
    for (uint64_t i = 0; i < h.count; ++i)
      deformable_detr_box_head(t, prefix + "decoder.bbox_embed." + std::to_string(i) + ".", d);
  if (h.two_stage)
    for (uint64_t i = 0; i < h.count; ++i)
      blocks::linear(t, prefix + "decoder.class_embed." + std::to_string(i), d, labels, true);
}

// Every name of `list`.N.* for N >= 1 tied to its .0 twin (one module listed N times), or, with
// `decoder_copy`, each name tied to the decoder's model.decoder.`list`.N.* (the same ModuleList).
void deformable_detr_tie_list(ModelTemplate& t, const std::string& list, uint64_t count, bool decoder_copy) {
  const std::string first = list + ".0.", decoder = "model.decoder." + list + ".";
  const size_t end = t.tensors.size();
  std::vector<std::string> sources;
  for (size_t i = 0; i < end; ++i) {
    const std::string& name = t.tensors[i].name;
    if (name.starts_with(decoder_copy ? decoder : first)) sources.push_back(name);
  }
  if (decoder_copy) {
    for (const std::string& s : sources) t.tie(s.substr(std::string("model.decoder.").size()), s);
    return;
  }
  for (uint64_t n = 1; n < count; ++n)
    for (const std::string& s : sources)
      t.tie(list + "." + std::to_string(n) + "." + s.substr(first.size()), s);
}

// DeformableDetrModel under `prefix`, its heads' decoder copies included.
StackDims deformable_detr_body(const ModelConfig& cfg, const std::string& prefix,
                               const DeformableDetrHeads& h, ModelTemplate& t) {
  const uint64_t d = cfg.dim_or("d_model", 256);
  const uint64_t levels = cfg.dim_or("num_feature_levels", 4);
  // nn.GroupNorm(32, d_model) after every input projection.
  if (d % 32 != 0) cfg.fail("d_model", "must be divisible by 32 (the input projections' GroupNorm)");
  const StackDims enc = read_stack(cfg, "encoder", d, 6, 8, 1024);
  const StackDims dec = read_stack(cfg, "decoder", d, 6, 8, 1024);

  // The model's own parameter comes first in state_dict: one embedding per feature level.
  t.add(prefix + "level_embed", {levels, d});
  // DeformableDetrConvEncoder asks timm for stages 2 to 4 (the last alone with one level).
  const std::vector<uint64_t> channels =
      detr_conv_backbone(cfg, prefix + "backbone.conv_encoder.model.", t,
                         levels > 1 ? std::vector<uint64_t>{2, 3, 4} : std::vector<uint64_t>{4});
  const std::string positions = detr_position_embedding(cfg, prefix, d, t);
  // The last map alone with one level.
  detr_multiscale_input_projections(
      t, prefix + "input_proj.", levels > 1 ? channels : std::vector<uint64_t>{channels.back()}, levels, d);
  const bool two_stage = cfg.flag_or("two_stage", false);
  if (!two_stage)
    blocks::embedding(t, prefix + "query_position_embeddings.weight", cfg.dim_or("num_queries", 300), 2 * d);
  for (uint64_t i = 0; i < enc.layers; ++i)
    deformable_detr_encoder_layer(t, prefix + "encoder.layers." + std::to_string(i) + ".", enc.layer, levels,
                                  cfg.dim_or("encoder_n_points", 4));
  for (uint64_t i = 0; i < dec.layers; ++i)
    deformable_detr_decoder_layer(t, prefix + "decoder.layers." + std::to_string(i) + ".", dec.layer, levels,
                                  cfg.dim_or("decoder_n_points", 4));
  deformable_detr_decoder_heads(t, prefix, d, num_labels(cfg),
                                {dec.layers + (h.two_stage ? 1 : 0), h.refine, h.two_stage});
  if (two_stage) {
    // The encoder's tokens become proposals; their boxes' sine embeddings the decoder's queries.
    blocks::linear(t, prefix + "enc_output", d, d, true);
    blocks::norm(t, prefix + "enc_output_norm", d, true);
    blocks::linear(t, prefix + "pos_trans", 2 * d, 2 * d, true);
    blocks::norm(t, prefix + "pos_trans_norm", 2 * d, true);
  } else {
    blocks::linear(t, prefix + "reference_points", d, 2, true);
  }

  describe_detr_transformer(cfg, prefix, positions, true, enc, dec, t);
  return dec;
}

}  // namespace

void detr_multiscale_input_projections(ModelTemplate& t, const std::string& list,
                                       const std::vector<uint64_t>& maps, uint64_t levels, uint64_t d) {
  uint64_t in = maps.back();
  for (uint64_t i = 0; i < std::max<uint64_t>(levels, maps.size()); ++i) {
    const std::string p = list + std::to_string(i) + ".";
    const bool extra = i >= maps.size();
    blocks::conv2d(t, p + "0", extra ? in : maps[i], d, extra ? 3 : 1);
    blocks::norm(t, p + "1", d, true);
    if (extra) in = d;
  }
}

void build_deformable_detr(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DeformableDetrModel");
  const std::string task = supported_task(cfg, cls, "DeformableDetr", {"Model", "ForObjectDetection"});
  t.arch.architecture = cls;
  DeformableDetrHeads h;
  h.refine = cfg.flag_or("with_box_refine", false);
  h.two_stage = cfg.flag_or("two_stage", false);
  // DeformableDetrConfig raises on a two-stage model without box refinement.
  if (h.two_stage && !h.refine) cfg.fail("with_box_refine", "must be true with two_stage");
  if (task == "Model") {
    deformable_detr_body(cfg, "", {}, t);
    return;
  }
  const StackDims dec = deformable_detr_body(cfg, "model.", h, t);
  h.count = dec.layers + (h.two_stage ? 1 : 0);
  const uint64_t d = dec.layer.hidden, labels = num_labels(cfg);
  // Sigmoid focal loss: no "no object" class.
  if (h.two_stage) {
    deformable_detr_tie_list(t, "class_embed", h.count, true);
  } else {
    for (uint64_t i = 0; i < (h.refine ? h.count : 1); ++i)
      blocks::linear(t, "class_embed." + std::to_string(i), d, labels, true);
    if (!h.refine) deformable_detr_tie_list(t, "class_embed", h.count, false);
  }
  if (h.refine) {
    deformable_detr_tie_list(t, "bbox_embed", h.count, true);
  } else {
    deformable_detr_box_head(t, "bbox_embed.0.", d);
    deformable_detr_tie_list(t, "bbox_embed", h.count, false);
  }
}

}  // namespace ma::families
