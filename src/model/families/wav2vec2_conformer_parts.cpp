#include "model/families/wav2vec2_conformer_parts.h"

#include "model/blocks.h"

namespace ma::families {

uint64_t conformer_depthwise_kernel(const ModelConfig& cfg) {
  const uint64_t kernel = cfg.dim_or("conv_depthwise_kernel_size", 31);
  // The convolution module raises on an even kernel ("should be a odd number for 'SAME' padding").
  if (kernel % 2 == 0) cfg.fail("conv_depthwise_kernel_size", "must be odd");
  return kernel;
}

std::string conformer_position_type(const ModelConfig& cfg, std::string_view dflt) {
  const json::Value* v = cfg.raw("position_embeddings_type");
  if (v && v->is_null()) return "";  // an explicit null: no position embeddings at all
  return cfg.string_or("position_embeddings_type", dflt);
}

void wav2vec2_feed_forward(ModelTemplate& t, const std::string& ffn, uint64_t hidden, uint64_t inner) {
  blocks::linear(t, ffn + "intermediate_dense", hidden, inner, true);
  blocks::linear(t, ffn + "output_dense", inner, hidden, true);
}

void conformer_attention_projections(ModelTemplate& t, const std::string& attention, uint64_t width) {
  for (const char* proj : {"linear_q", "linear_k", "linear_v", "linear_out"})
    blocks::linear(t, attention + proj, width, width, true);
}

void conformer_adapter_layer(ModelTemplate& t, const std::string& p, uint64_t width, uint64_t ffn,
                             uint64_t kernel) {
  blocks::norm(t, p + "residual_layer_norm", width, true);
  blocks::conv1d(t, p + "residual_conv", width, 2 * width, kernel);
  blocks::norm(t, p + "self_attn_layer_norm", width, true);
  blocks::conv1d(t, p + "self_attn_conv", width, 2 * width, kernel);
  conformer_attention_projections(t, p + "self_attn.", width);
  blocks::norm(t, p + "ffn_layer_norm", width, true);
  wav2vec2_feed_forward(t, p + "ffn.", width, ffn);
}

void wav2vec2_conformer_layer(ModelTemplate& t, const std::string& layer, const ConformerLayerDims& d) {
  const uint64_t h = d.hidden, head = h / d.heads;
  const std::string p = layer + ".";
  blocks::norm(t, p + "ffn1_layer_norm", h, true);
  wav2vec2_feed_forward(t, p + "ffn1.", h, d.ffn);
  blocks::norm(t, p + "self_attn_layer_norm", h, true);
  // The attention's own pos_bias_u / pos_bias_v come before its Linears (named_parameters lists a module's
  // own parameters first), linear_pos (bias-free) and distance_embedding after them.
  const std::string a = p + "self_attn.";
  if (d.positions == ConformerPositions::Relative) {
    t.add(a + "pos_bias_u", {d.heads, head});
    t.add(a + "pos_bias_v", {d.heads, head});
  }
  conformer_attention_projections(t, a, h);
  if (d.positions == ConformerPositions::Relative) blocks::linear(t, a + "linear_pos", h, h, false);
  if (d.positions == ConformerPositions::RelativeKey)
    blocks::embedding(t, a + "distance_embedding.weight", d.distance_rows, head);
  // The convolution module: bias-free pointwise (to a GLU), depthwise and pointwise convolutions.
  const std::string c = p + "conv_module.";
  blocks::norm(t, c + "layer_norm", h, true);
  t.add(c + "pointwise_conv1.weight", {2 * h, h, 1});
  t.add(c + "depthwise_conv.weight", {h, 1, d.kernel});
  if (d.depthwise_layer_norm) {
    blocks::norm(t, c + "depthwise_layer_norm", h, true);
  } else {  // BatchNorm1d: its running statistics are persistent buffers
    blocks::norm(t, c + "batch_norm", h, true);
    t.add(c + "batch_norm.running_mean", {h}).kind = TensorKind::Buffer;
    t.add(c + "batch_norm.running_var", {h}).kind = TensorKind::Buffer;
    t.add(c + "batch_norm.num_batches_tracked", {}).kind = TensorKind::Buffer;
  }
  t.add(c + "pointwise_conv2.weight", {h, h, 1});
  blocks::norm(t, p + "ffn2_layer_norm", h, true);
  wav2vec2_feed_forward(t, p + "ffn2.", h, d.ffn);
  blocks::norm(t, p + "final_layer_norm", h, true);
}

}  // namespace ma::families
