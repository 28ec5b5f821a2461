// DAB-DETR (model_type dab-detr; IDEA-Research/dab-detr-resnet-50): DETR's frozen-batch-norm backbone
// (detr_backbone.cpp) and encoder layers, with 4-D anchor boxes as queries (query_refpoint_embeddings) and a
// Conditional-DETR-style decoder whose layers group their projections in three submodules (self_attn,
// cross_attn, mlp). Surprises: the default activation is PReLU, which ACT2FN builds as an nn.PReLU with one
// learned weight in every encoder layer and every decoder mlp; the encoder holds a query_scale MLP of its
// own; DabDetrForObjectDetection's bbox_predictor is the very module it sets as model.decoder.bbox_embed.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// ACT2FN[activation_function] as a layer registers it: nn.PReLU() holds one weight, the others nothing.
void dab_detr_activation(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  if (cfg.string_or("activation_function", "prelu") == "prelu") t.add(p + "activation_fn.weight", {1});
}

// DabDetrEncoderLayer: DETR's (BART's names), the activation registered between the attention's LayerNorm
// and fc1.
void dab_detr_encoder_layer(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                            const LayerDims& l) {
  const uint64_t d = l.hidden;
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + "self_attn." + proj, d, d, true);
  blocks::norm(t, p + "self_attn_layer_norm", d, true);
  dab_detr_activation(cfg, t, p);
  blocks::linear(t, p + "fc1", d, l.ffn, true);
  blocks::linear(t, p + "fc2", l.ffn, d, true);
  blocks::norm(t, p + "final_layer_norm", d, true);
}

// DabDetrDecoderLayer. Its attentions (DabDetrAttention) hold only output_proj: the layer projects queries,
// keys and values itself. Only the first layer keeps cross_attn_query_pos_proj unless keep_query_pos (the
// others set it to None, which drops it from the parameters and the state_dict).
void dab_detr_decoder_layer(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                            const LayerDims& l, bool first) {
  const uint64_t d = l.hidden;
  const std::string sa = p + "self_attn.", ca = p + "cross_attn.", mlp = p + "mlp.";
  for (const char* proj :
       {"query_content_proj", "query_pos_proj", "key_content_proj", "key_pos_proj", "value_proj"})
    blocks::linear(t, sa + "self_attn_" + proj, d, d, true);
  blocks::linear(t, sa + "self_attn.output_proj", d, d, true);
  blocks::norm(t, sa + "self_attn_layer_norm", d, true);
  const bool query_pos = first || cfg.flag_or("keep_query_pos", false);
  for (const char* proj : {"query_content_proj", "query_pos_proj", "key_content_proj", "key_pos_proj",
                           "value_proj", "query_pos_sine_proj"})
    if (query_pos || std::string(proj) != "query_pos_proj")
      blocks::linear(t, ca + "cross_attn_" + proj, d, d, true);
  blocks::norm(t, ca + "cross_attn_layer_norm", d, true);
  // DabDetrAttention(is_cross=True): queries and keys 2 x hidden wide, values and output hidden.
  blocks::linear(t, ca + "cross_attn.output_proj", d, d, true);
  blocks::norm(t, mlp + "final_layer_norm", d, true);
  blocks::linear(t, mlp + "fc1", d, l.ffn, true);
  blocks::linear(t, mlp + "fc2", l.ffn, d, true);
  dab_detr_activation(cfg, t, mlp);
}

// DabDetrModel under `prefix` ("model." or ""). `detection`: DabDetrForObjectDetection sets its bbox
// predictor on the decoder, which appends it to the decoder's modules. Returns the decoder's dimensions.
StackDims dab_detr_model_body(const ModelConfig& cfg, const std::string& prefix, bool detection,
                              ModelTemplate& t) {
  // DabDetrConfig raises unless query_dim is 4 (the anchors' centre, width and height).
  if (cfg.dim_or("query_dim", 4) != 4) cfg.fail("query_dim", "must be 4 (DabDetrConfig refuses any other)");
  const uint64_t d = cfg.dim_or("d_model", 256);
  // DabDetrConfig's defaults: IDEA-Research/dab-detr-resnet-50's 6 + 6 layers of 8 heads, 2048-wide FFNs.
  const StackDims enc = read_stack(cfg, "encoder", d, 6, 8, 2048);
  const StackDims dec = read_stack(cfg, "decoder", d, 6, 8, 2048);

  // The backbone is built (its channels read) before query_refpoint_embeddings and input_projection, then
  // wrapped with the sine position embedding (no parameter) in the same slot.
  const std::vector<uint64_t> channels = detr_conv_backbone(cfg, prefix + "backbone.conv_encoder.model.", t);
  blocks::embedding(t, prefix + "query_refpoint_embeddings.weight", cfg.dim_or("num_queries", 300), 4);
  blocks::conv2d(t, prefix + "input_projection", channels.back(), d, 1);

  // DabDetrMLP is DETR's prediction head (RT-DETR's). DabDetrEncoder: query_scale (MLP(d, d, d, 2): the
  // positions' scale from the content), the layers, and a final LayerNorm only with normalize_before.
  rt_detr_prediction_head(t, prefix + "encoder.query_scale.", d, d, d, 2);
  for (uint64_t i = 0; i < enc.layers; ++i)
    dab_detr_encoder_layer(cfg, t, prefix + "encoder.layers." + std::to_string(i) + ".", enc.layer);
  if (cfg.flag_or("normalize_before", false)) blocks::norm(t, prefix + "encoder.norm", d, true);

  // DabDetrDecoder: the layers, layernorm, query_scale, ref_point_head (from the anchors' 2 x d sine
  // embedding), ref_anchor_head (width and height modulation), then bbox_embed once the detector sets it.
  const std::string dp = prefix + "decoder.";
  for (uint64_t i = 0; i < dec.layers; ++i)
    dab_detr_decoder_layer(cfg, t, dp + "layers." + std::to_string(i) + ".", dec.layer, i == 0);
  blocks::norm(t, dp + "layernorm", d, true);
  rt_detr_prediction_head(t, dp + "query_scale.", d, d, d, 2);
  rt_detr_prediction_head(t, dp + "ref_point_head.", 2 * d, d, d, 2);
  rt_detr_prediction_head(t, dp + "ref_anchor_head.", d, d, 2, 2);
  if (detection) rt_detr_prediction_head(t, dp + "bbox_embed.", d, d, 4, 3);
  if (const uint64_t patterns = cfg.count_or("num_patterns", 0); patterns > 0)
    blocks::embedding(t, prefix + "patterns.weight", patterns, d);

  // The backbone's last feature map, 2-D sine positions added to queries and keys in every layer; the layers
  // normalise after each block whatever normalize_before says (it only adds encoder.norm).
  describe_detr_transformer(cfg, prefix, "sine", true, enc, dec, t);
  t.arch.activation = cfg.string_or("activation_function", "prelu");
  return dec;
}

}  // namespace

void build_dab_detr(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DabDetrModel");
  const std::string task = supported_task(cfg, cls, "DabDetr", {"Model", "ForObjectDetection"});
  t.arch.architecture = cls;
  if (task == "Model") {
    dab_detr_model_body(cfg, "", false, t);
    return;
  }
  const uint64_t d = dab_detr_model_body(cfg, "model.", true, t).layer.hidden;
  // class_embed has no "no object" class (sigmoid focal loss); bbox_predictor is model.decoder.bbox_embed,
  // which save_pretrained keeps (it drops the first of the two names in sorted order).
  blocks::linear(t, "class_embed", d, num_labels(cfg), true);
  for (const char* leaf : {"0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "2.bias"})
    t.tie(std::string("bbox_predictor.layers.") + leaf,
          std::string("model.decoder.bbox_embed.layers.") + leaf);
}

}  // namespace ma::families
