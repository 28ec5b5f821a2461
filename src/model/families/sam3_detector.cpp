// SAM 3's detector heads after its encoders (transformers' Sam3GeometryEncoder, Sam3DetrEncoder,
// Sam3DetrDecoder, Sam3MaskDecoder and Sam3DotProductScoring), each from its own sub-config, all 256 wide at
// SAM 3's defaults. Every attention is Sam3Attention: biased q, k, v and o projections at the full width,
// whatever the head count; every MLP is Sam3MLP (fc1, fc2) or Sam3DecoderMLP (layer1 .. layer3).
#include <string>

#include "model/blocks.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam3.h"
#include "model/families/segment_anything.h"

namespace ma::families {
namespace {

struct Sam3Width {
  uint64_t hidden = 256, intermediate = 2048;
};

// The sub-configs' common fields (Sam3GeometryEncoderConfig, Sam3DETREncoderConfig, Sam3DETRDecoderConfig).
Sam3Width sam3_width(const ModelConfig& c) {
  return {c.dim_or("hidden_size", 256), c.dim_or("intermediate_size", 2048)};
}

void sam3_attention(ModelTemplate& t, const std::string& p, uint64_t h) {
  sam_two_way_attention(t, p, h, h, "o_proj");
}

void sam3_mlp(ModelTemplate& t, const std::string& p, const Sam3Width& w) {
  blocks::linear(t, p + "fc1", w.hidden, w.intermediate, true);
  blocks::linear(t, p + "fc2", w.intermediate, w.hidden, true);
}

// Sam3DecoderMLP of two or three Linears (layer3 is None in a two-layer one).
void sam3_decoder_mlp(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden, uint64_t out,
                      int layers) {
  blocks::linear(t, p + "layer1", in, hidden, true);
  blocks::linear(t, p + "layer2", hidden, layers == 3 ? hidden : out, true);
  if (layers == 3) blocks::linear(t, p + "layer3", hidden, out, true);
}

// Sam3GeometryEncoderLayer and Sam3DetrEncoderLayer register the same modules: a pre-norm self-attention,
// a cross-attention (to the image, resp. to the prompt) and an MLP.
void sam3_encoder_layer(ModelTemplate& t, const std::string& l, const Sam3Width& w) {
  blocks::norm(t, l + "layer_norm1", w.hidden, true);
  sam3_attention(t, l + "self_attn.", w.hidden);
  sam3_attention(t, l + "cross_attn.", w.hidden);
  blocks::norm(t, l + "layer_norm2", w.hidden, true);
  sam3_mlp(t, l + "mlp.", w);
  blocks::norm(t, l + "layer_norm3", w.hidden, true);
}

// Sam3GeometryEncoder: the box prompts' embeddings (label and CLS tables, a direct, an ROI-pooled and a
// position projection), norms and layers attending to the last FPN level.
void sam3_geometry_encoder(const ModelConfig& g, ModelTemplate& t) {
  const std::string p = "geometry_encoder.";
  const Sam3Width w = sam3_width(g);
  const uint64_t h = w.hidden, roi = g.dim_or("roi_size", 7), layers = g.layers_or("num_layers", 3);
  blocks::embedding(t, p + "label_embed.weight", 2, h);  // negative, positive
  blocks::embedding(t, p + "cls_embed.weight", 1, h);
  blocks::linear(t, p + "boxes_direct_project", 4, h, true);
  blocks::conv2d(t, p + "boxes_pool_project", h, h, roi);  // over the roi_size x roi_size ROI-aligned patch
  // The box centre's sine encoding (hidden_size wide) plus its raw height and width.
  blocks::linear(t, p + "boxes_pos_enc_project", h + 2, h, true);
  blocks::norm(t, p + "vision_layer_norm", h, true);
  blocks::linear(t, p + "final_proj", h, h, true);
  blocks::norm(t, p + "prompt_layer_norm", h, true);
  for (uint64_t i = 0; i < layers; ++i) sam3_encoder_layer(t, p + "layers." + std::to_string(i) + ".", w);
  blocks::norm(t, p + "output_layer_norm", h, true);
}

void sam3_detr_encoder(const ModelConfig& e, ModelTemplate& t) {
  const Sam3Width w = sam3_width(e);
  const uint64_t layers = e.layers_or("num_layers", 6);
  for (uint64_t i = 0; i < layers; ++i)
    sam3_encoder_layer(t, "detr_encoder.layers." + std::to_string(i) + ".", w);
}

// Sam3DetrDecoder: post-norm layers (self-attention, text and image cross-attention, MLP), then its own
// heads: box refinement, the object queries and their reference boxes, the presence token and its head, the
// queries' position MLP and the box relative-position-bias MLPs (one output per head).
void sam3_detr_decoder(const ModelConfig& d, ModelTemplate& t) {
  const std::string p = "detr_decoder.";
  const Sam3Width w = sam3_width(d);
  const uint64_t h = w.hidden, layers = d.layers_or("num_layers", 6);
  const uint64_t queries = d.dim_or("num_queries", 200), heads = d.dim_or("num_attention_heads", 8);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    for (const char* attn : {"self_attn", "text_cross_attn", "vision_cross_attn"}) {
      sam3_attention(t, l + attn + ".", h);
      blocks::norm(t, l + attn + "_layer_norm", h, true);
    }
    sam3_mlp(t, l + "mlp.", w);
    blocks::norm(t, l + "mlp_layer_norm", h, true);
  }
  blocks::norm(t, p + "output_layer_norm", h, true);
  sam3_decoder_mlp(t, p + "box_head.", h, h, 4, 3);
  blocks::embedding(t, p + "query_embed.weight", queries, h);
  blocks::embedding(t, p + "reference_points.weight", queries, 4);
  blocks::embedding(t, p + "presence_token.weight", 1, h);
  sam3_decoder_mlp(t, p + "presence_head.", h, h, 1, 3);
  blocks::norm(t, p + "presence_layer_norm", h, true);
  sam3_decoder_mlp(t, p + "ref_point_head.", 2 * h, h, h, 2);  // from the 4-coordinate box sine encoding
  sam3_decoder_mlp(t, p + "box_rpb_embed_x.", 2, h, heads, 2);
  sam3_decoder_mlp(t, p + "box_rpb_embed_y.", 2, h, heads, 2);
}

// Sam3MaskDecoder: the pixel decoder's convolutions and GroupNorms, the query MLP, the instance and semantic
// projections and the prompt cross-attention.
void sam3_mask_decoder(const ModelConfig& m, ModelTemplate& t) {
  const std::string p = "mask_decoder.";
  const uint64_t h = m.dim_or("hidden_size", 256), stages = m.count_or("num_upsampling_stages", 3);
  if (h % 8 != 0)
    m.fail("hidden_size", "must be a multiple of 8 (the pixel decoder's GroupNorm(8, hidden_size))");
  for (uint64_t i = 0; i < stages; ++i)
    blocks::conv2d(t, p + "pixel_decoder.conv_layers." + std::to_string(i), h, h, 3);
  for (uint64_t i = 0; i < stages; ++i)
    blocks::norm(t, p + "pixel_decoder.norms." + std::to_string(i), h, true);
  for (int i = 0; i < 3; ++i) blocks::linear(t, p + "mask_embedder.layers." + std::to_string(i), h, h, true);
  blocks::conv2d(t, p + "instance_projection", h, h, 1);
  blocks::conv2d(t, p + "semantic_projection", h, 1, 1);
  sam3_attention(t, p + "prompt_cross_attn.", h);
  blocks::norm(t, p + "prompt_cross_attn_norm", h, true);
}

// Sam3DotProductScoring reads detr_decoder_config: a residual text MLP of its intermediate_size and a norm,
// then the text and query projections (hidden_size to hidden_size).
void sam3_dot_product_scoring(const ModelConfig& d, ModelTemplate& t) {
  const std::string p = "dot_product_scoring.";
  const Sam3Width w = sam3_width(d);
  sam3_decoder_mlp(t, p + "text_mlp.", w.hidden, w.intermediate, w.hidden, 2);
  blocks::norm(t, p + "text_mlp_out_norm", w.hidden, true);
  blocks::linear(t, p + "text_proj", w.hidden, w.hidden, true);
  blocks::linear(t, p + "query_proj", w.hidden, w.hidden, true);
}

}  // namespace

void sam3_detector_heads(const ModelConfig& cfg, ModelTemplate& t) {
  const ModelConfig decoder = sub_or_empty(cfg, "detr_decoder_config");
  sam3_geometry_encoder(sub_or_empty(cfg, "geometry_encoder_config"), t);
  sam3_detr_encoder(sub_or_empty(cfg, "detr_encoder_config"), t);
  sam3_detr_decoder(decoder, t);
  sam3_mask_decoder(sub_or_empty(cfg, "mask_decoder_config"), t);
  sam3_dot_product_scoring(decoder, t);
}

}  // namespace ma::families
