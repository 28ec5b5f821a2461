// D-FINE (model_type d_fine; ustc-community/dfine-nano-coco ... dfine-xlarge-coco): an HGNetV2 backbone
// (hgnet_v2.cpp) whose batch norms replace_batch_norm freezes, RT-DETR's AIFI encoder and two-stage query
// selection (rt_detr_*.cpp), a CCFM neck of RepNCSPELAN4 blocks and SCDown downsamplers, and a decoder that
// refines box-edge distributions (FDR): each layer's deformable cross-attention samples the encoder's levels
// without value or output projections and merges back through a gate; the decoder owns two fixed scalars
// (reg_scale and up, parameters with requires_grad False, counted by parameters()), a pre-box head and a
// location-quality estimator per layer. As in RT-DETR v2, the detector's class_embed and bbox_embed are the
// lists it sets on model.decoder.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/json.h"
#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vision_e.h"

namespace ma::families {
namespace {

// DFineRepNCSPELAN4 under `p`, on encoder_hidden_dim `h`: a 1 x 1 conv of the two concatenated maps split in
// halves, two CSP branches (each a CSPRepLayer of `blocks` RepVGG blocks, then a 3 x 3 conv) at `branch`
// channels, and a 1 x 1 conv of everything back to h.
void d_fine_rep_ncsp_elan4(ModelTemplate& t, const std::string& p, uint64_t h, uint64_t branch,
                           uint64_t blocks) {
  rt_detr_conv_norm(t, p + "conv1.", 2 * h, 2 * h, 1);
  rt_detr_csp_rep_layer(t, p + "csp_rep1.", h, branch, branch, blocks);
  rt_detr_conv_norm(t, p + "conv2.", branch, branch, 3);
  rt_detr_csp_rep_layer(t, p + "csp_rep2.", branch, branch, branch, blocks);
  rt_detr_conv_norm(t, p + "conv3.", branch, branch, 3);
  rt_detr_conv_norm(t, p + "conv4.", 2 * h + 2 * branch, h, 1);
}

// DFineHybridEncoder under `prefix`: the AIFI layers, then lateral_convs, fpn_blocks, downsample_convs
// (SCDown: a 1 x 1 conv and a depthwise strided 3 x 3 one) and pan_blocks, each list registered whole.
StackDims d_fine_hybrid_encoder(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const uint64_t h = cfg.dim_or("encoder_hidden_dim", 256);
  const size_t levels = cfg.dims_or("encoder_in_channels", {512, 1024, 2048}).size();
  if (levels == 0) cfg.fail("encoder_in_channels", "must list at least one feature level");
  // round(hidden_expansion * encoder_hidden_dim // 2): Python's float floor division, then round.
  const double branch_exact = std::floor(cfg.number_or("hidden_expansion", 1.0) * static_cast<double>(h) / 2);
  if (!(branch_exact >= 1)) cfg.fail("hidden_expansion", "must leave the CSP branches at least one channel");
  const auto branch = static_cast<uint64_t>(branch_exact);
  // round(3 * depth_mult), Python's round half to even (nearbyint's default rounding).
  const double blocks_exact = std::nearbyint(3 * cfg.number_or("depth_mult", 1.0));
  if (!(blocks_exact >= 0 && blocks_exact <= 1024))
    cfg.fail("depth_mult", "must give 0 to 1024 RepVGG blocks");
  const auto blocks = static_cast<uint64_t>(blocks_exact);

  const StackDims aifi = rt_detr_aifi_encoders(cfg, prefix, t);
  for (size_t s = 0; s + 1 < levels; ++s)
    rt_detr_conv_norm(t, prefix + "lateral_convs." + std::to_string(s) + ".", h, h, 1);
  for (size_t s = 0; s + 1 < levels; ++s)
    d_fine_rep_ncsp_elan4(t, prefix + "fpn_blocks." + std::to_string(s) + ".", h, branch, blocks);
  for (size_t s = 0; s + 1 < levels; ++s) {
    const std::string p = prefix + "downsample_convs." + std::to_string(s) + ".";
    rt_detr_conv_norm(t, p + "conv1.", h, h, 1);
    t.add(p + "conv2.conv.weight", {h, 1, 3, 3});  // groups = encoder_hidden_dim
    detr_batch_norm(t, p + "conv2.norm", h, false);
  }
  for (size_t s = 0; s + 1 < levels; ++s)
    d_fine_rep_ncsp_elan4(t, prefix + "pan_blocks." + std::to_string(s) + ".", h, branch, blocks);
  return aifi;
}

// decoder_n_points: one count for every level, or a list of num_feature_levels counts. Returns their sum.
uint64_t d_fine_sampling_points(const ModelConfig& cfg, uint64_t levels) {
  const json::Value* v = cfg.raw("decoder_n_points");
  if (!v || !v->is_array()) return levels * cfg.dim_or("decoder_n_points", 4);
  const std::vector<uint64_t> points = cfg.dims_or("decoder_n_points", {});
  if (points.size() != levels)
    cfg.fail("decoder_n_points", "must list one count per feature level (num_feature_levels)");
  uint64_t sum = 0;
  for (const uint64_t p : points) sum += p;
  return sum;
}

// DFineDecoderLayer under `p`: RT-DETR's layer with D-FINE's deformable attention (its num_points_scale
// buffer first, then sampling_offsets and attention_weights only: it samples the encoder's states as they
// are) and, in place of encoder_attn_layer_norm, the gateway (a 2 d -> 2 d gate and a LayerNorm).
void d_fine_decoder_layer(ModelTemplate& t, const std::string& p, const LayerDims& l, uint64_t points) {
  const uint64_t d = l.hidden;
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    blocks::linear(t, p + "self_attn." + proj, d, d, true);
  blocks::norm(t, p + "self_attn_layer_norm", d, true);
  t.add(p + "encoder_attn.num_points_scale", {points}).kind = TensorKind::Buffer;
  blocks::linear(t, p + "encoder_attn.sampling_offsets", d, l.heads * points * 2, true);
  blocks::linear(t, p + "encoder_attn.attention_weights", d, l.heads * points, true);
  blocks::linear(t, p + "fc1", d, l.ffn, true);
  blocks::linear(t, p + "fc2", l.ffn, d, true);
  blocks::norm(t, p + "final_layer_norm", d, true);
  blocks::linear(t, p + "gateway.gate", 2 * d, 2 * d, true);
  blocks::norm(t, p + "gateway.norm", d, true);
}

// eval_idx resolved as DFineDecoder does (negative counts from the end).
uint64_t d_fine_eval_index(const ModelConfig& cfg, uint64_t layers) {
  const double raw = cfg.number_or("eval_idx", -1);
  const double idx = raw >= 0 ? raw : static_cast<double>(layers) + raw;
  if (idx != std::floor(idx) || idx < 0 || idx >= static_cast<double>(layers))
    cfg.fail("eval_idx", "must name one of the decoder layers");
  return static_cast<uint64_t>(idx);
}

// DFineModel under `prefix` ("model." or ""); returns the decoder's dimensions.
StackDims d_fine_model_body(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  if (cfg.flag_or("use_timm_backbone", false))
    unsupported(cfg, "D-FINE with a timm backbone (the Hub's checkpoints use an hgnet_v2 backbone_config)");
  if (cfg.has("backbone") && !cfg.has("backbone_config"))
    unsupported(cfg,
                "D-FINE with a backbone loaded by name (" + printable(cfg.string_or("backbone", "")) + ")");
  // DFineConfig's default backbone_config: HGNetV2Config's defaults (PP-HGNetV2-B4) handing on stages 2 to 4.
  const ModelConfig bb = sub_or(cfg, "backbone_config", R"({"model_type":"hgnet_v2","out_indices":[2,3,4]})");
  if (bb.string_or("model_type", "") != "hgnet_v2")
    bb.fail("model_type", "must be hgnet_v2: the only D-FINE backbone this analysis builds");
  const size_t backbone_start = t.tensors.size();
  const std::vector<uint64_t> channels = hgnet_v2_backbone(bb, prefix + "backbone.model.", t);
  if (cfg.flag_or("freeze_backbone_batch_norms", true)) detr_replace_batch_norms(t, backbone_start);

  // One 1 x 1 projection per decoder_in_channels entry, from the backbone's maps in order.
  const std::vector<uint64_t> decoder_in = cfg.dims_or("decoder_in_channels", {256, 256, 256});
  if (decoder_in.empty() || decoder_in.size() != channels.size())
    cfg.fail("decoder_in_channels", "must list one entry per backbone feature map");
  const uint64_t width = cfg.dim_or("encoder_hidden_dim", 256);
  for (size_t i = 0; i < channels.size(); ++i) {
    const std::string p = prefix + "encoder_input_proj." + std::to_string(i) + ".";
    detr_conv_norm(t, p + "0", p + "1", channels[i], width, 1, false);
  }
  const StackDims aifi = d_fine_hybrid_encoder(cfg, prefix + "encoder.", t);

  const uint64_t d = cfg.dim_or("d_model", 256);
  rt_detr_query_selection(cfg, prefix, d, t);

  const StackDims dec = read_stack(cfg, "decoder", d, 6, 8, 1024);
  if (cfg.string_or("decoder_activation_function", "relu") == "prelu")
    unsupported(cfg, "D-FINE with a PReLU decoder activation (a parameter per layer)");
  const uint64_t eval_idx = d_fine_eval_index(cfg, dec.layers);
  const uint64_t points = d_fine_sampling_points(cfg, cfg.dim_or("num_feature_levels", 3));
  // DFineDecoder's own parameters come first in the state_dict: reg_scale and up.
  const std::string dp = prefix + "decoder.";
  t.add(dp + "reg_scale", {1});
  t.add(dp + "up", {1});
  // decoder_layers layers, then decoder_layers - eval_idx - 1 more.
  for (uint64_t i = 0; i < 2 * dec.layers - eval_idx - 1; ++i)
    d_fine_decoder_layer(t, dp + "layers." + std::to_string(i) + ".", dec.layer, points);
  rt_detr_prediction_head(t, dp + "query_pos_head.", 4, 2 * d, d, 2);
  rt_detr_prediction_head(t, dp + "pre_bbox_head.", d, d, 4, 3);
  // DFineLQE: MLP(4 (top_prob_values + 1), lqe_hidden_dim, 1, lqe_layers) over each box edge's top bins.
  const uint64_t lqe_in = 4 * (cfg.dim_or("top_prob_values", 4) + 1);
  const uint64_t lqe_layers = cfg.dim_or("lqe_layers", 2);
  for (uint64_t i = 0; i < dec.layers; ++i)
    rt_detr_prediction_head(t, dp + "lqe_layers." + std::to_string(i) + ".reg_conf.", lqe_in,
                            cfg.dim_or("lqe_hidden_dim", 64), 1, lqe_layers);

  describe_rt_detr(cfg, prefix, channels.back(), aifi, dec, t);
  return dec;
}

// decoder_input_proj, registered after the decoder: nn.Identity when d_model equals the last
// decoder_in_channels entry, else a 1 x 1 projection per level and a strided 3 x 3 one per extra level,
// every one reading decoder_in_channels[-1] channels.
void d_fine_decoder_input_proj(const ModelConfig& cfg, const std::string& prefix, uint64_t d,
                               ModelTemplate& t) {
  const std::vector<uint64_t> decoder_in = cfg.dims_or("decoder_in_channels", {256, 256, 256});
  const uint64_t in = decoder_in.back();
  if (in == d) return;
  const uint64_t levels = std::max<uint64_t>(cfg.dim_or("num_feature_levels", 3), decoder_in.size());
  for (uint64_t i = 0; i < levels; ++i) {
    const std::string p = prefix + "decoder_input_proj." + std::to_string(i) + ".";
    detr_conv_norm(t, p + "0", p + "1", in, d, i < decoder_in.size() ? 1 : 3, false);
  }
}

}  // namespace

void build_d_fine(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "DFineModel");
  const std::string task = supported_task(cfg, cls, "DFine", {"Model", "ForObjectDetection"});
  t.arch.architecture = cls;
  const std::string prefix = task == "Model" ? "" : "model.";
  const StackDims dec = d_fine_model_body(cfg, prefix, t);
  const uint64_t d = dec.layer.hidden;
  if (task == "Model") {
    d_fine_decoder_input_proj(cfg, prefix, d, t);
    return;
  }
  // DFineForObjectDetection sets its class_embed and bbox_embed lists on the decoder, after lqe_layers:
  // a classifier per layer, and per layer an MLP predicting max_num_bins + 1 bins for each box edge (layers
  // after eval_idx at round(layer_scale * hidden_size) wide).
  const uint64_t labels = num_labels(cfg), bins = 4 * (cfg.dim_or("max_num_bins", 32) + 1);
  const uint64_t eval_idx = d_fine_eval_index(cfg, dec.layers);
  const double scaled_exact = std::nearbyint(cfg.number_or("layer_scale", 1.0) * static_cast<double>(d));
  if (!(scaled_exact >= 1)) cfg.fail("layer_scale", "must leave the late box heads at least one channel");
  const auto scaled = static_cast<uint64_t>(scaled_exact);
  for (uint64_t i = 0; i < dec.layers; ++i)
    blocks::linear(t, "model.decoder.class_embed." + std::to_string(i), d, labels, true);
  for (uint64_t i = 0; i < dec.layers; ++i) {
    const uint64_t w = i <= eval_idx ? d : scaled;
    rt_detr_prediction_head(t, "model.decoder.bbox_embed." + std::to_string(i) + ".", w, w, bins, 3);
  }
  d_fine_decoder_input_proj(cfg, prefix, d, t);
  rt_detr_tie_heads_to_decoder(t);
}

}  // namespace ma::families
