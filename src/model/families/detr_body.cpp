// DETR's encoder-decoder body (DetrModel, copied by Table Transformer) and its detection heads. Its attention
// (DetrAttention) is BART's - k_proj, v_proj, q_proj, out_proj, all biased - with the 2-D sine (or learned)
// positions of the feature map added to queries and keys in every layer rather than to the input.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/detr.h"
#include "model/families/encoders_seq2seq_parts.h"

namespace ma::families {

std::vector<uint64_t> detr_model_body(const ModelConfig& cfg, const std::string& prefix,
                                      const DetrBodyStyle& s, ModelTemplate& t) {
  const uint64_t d = cfg.dim_or("d_model", 256);
  const uint64_t queries = cfg.dim_or("num_queries", s.default_queries);
  // DetrConfig's defaults: facebook/detr-resnet-50's 6 + 6 layers of 8 heads and 2048-wide FFNs.
  const StackDims enc = read_stack(cfg, "encoder", d, 6, 8, 2048);
  const StackDims dec = read_stack(cfg, "decoder", d, 6, 8, 2048);

  // DetrConvModel: conv_encoder, then position_embedding (parameters only when learned: 50 rows and 50
  // columns of d_model / 2, the sine one being computed).
  const std::vector<uint64_t> channels = detr_conv_backbone(cfg, prefix + "backbone.conv_encoder.model.", t);
  const std::string positions = detr_position_embedding(cfg, prefix, d, t);
  // A 1 x 1 convolution from the last feature map's channels to d_model.
  blocks::conv2d(t, prefix + "input_projection", channels.back(), d, 1);
  blocks::embedding(t, prefix + "query_position_embeddings.weight", queries, d);
  for (uint64_t i = 0; i < enc.layers; ++i)
    transformer_layer(t, prefix + "encoder.layers." + std::to_string(i), bart_layer_names(false), enc.layer);
  if (s.pre_norm) blocks::norm(t, prefix + "encoder.layernorm", d, true);
  if (s.decoder) {
    s.decoder(prefix + "decoder.", dec, t);
  } else {
    for (uint64_t i = 0; i < dec.layers; ++i)
      transformer_layer(t, prefix + "decoder.layers." + std::to_string(i), bart_layer_names(true), dec.layer);
    blocks::norm(t, prefix + "decoder.layernorm", d, true);  // after the last layer (and each, with aux loss)
  }

  describe_detr_transformer(cfg, prefix, positions, !s.pre_norm, enc, dec, t);
  return channels;
}

std::string detr_position_embedding(const ModelConfig& cfg, const std::string& prefix, uint64_t d,
                                    ModelTemplate& t) {
  const std::string positions = cfg.string_or("position_embedding_type", "sine");
  if (positions == "learned") {
    blocks::embedding(t, prefix + "backbone.position_embedding.row_embeddings.weight", 50, d / 2);
    blocks::embedding(t, prefix + "backbone.position_embedding.column_embeddings.weight", 50, d / 2);
  } else if (positions != "sine") {
    cfg.fail("position_embedding_type", "must be sine or learned");
  }
  return positions;
}

void describe_detr_transformer(const ModelConfig& cfg, const std::string& prefix,
                               const std::string& positions, bool post_norm, const StackDims& enc,
                               const StackDims& dec, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.post_norm = post_norm;
  a.norm = NormKind::LayerNorm;
  a.activation = cfg.string_or("activation_function", "relu");
  a.position = positions == "learned" ? PositionKind::Learned : PositionKind::Sinusoidal;
  a.attention_bias = a.mlp_bias = true;
  // The encoder attends over the feature map's positions (as many as the image gives), the decoder's
  // num_queries object queries over them: no position table bounds either.
  const uint64_t d = enc.layer.hidden;
  describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", enc, d / enc.layer.heads);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", dec, d / dec.layer.heads);
  describe_main(t, dec, 0);
}

void detr_detection_heads(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t,
                          bool no_object_class) {
  const uint64_t d = cfg.dim_or("d_model", 256);
  blocks::linear(t, prefix + "class_labels_classifier", d, num_labels(cfg) + (no_object_class ? 1 : 0), true);
  // DetrMLPPredictionHead(d_model, d_model, 4, num_layers=3): box centre, width and height.
  blocks::linear(t, prefix + "bbox_predictor.layers.0", d, d, true);
  blocks::linear(t, prefix + "bbox_predictor.layers.1", d, d, true);
  blocks::linear(t, prefix + "bbox_predictor.layers.2", d, 4, true);
}

}  // namespace ma::families
