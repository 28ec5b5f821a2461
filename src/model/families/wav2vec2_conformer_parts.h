// The Conformer block transformers' Wav2Vec2ConformerEncoderLayer builds and Wav2Vec2BertEncoderLayer copies
// (half-step feed-forward, self-attention, convolution module, half-step feed-forward, final LayerNorm), with
// their module names; wav2vec2_conformer.cpp and wav2vec2_bert.cpp build their encoders from it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// What the self-attention adds for position_embeddings_type: nothing (rotary, none), Transformer-XL's
// pos_bias_u / pos_bias_v and linear_pos ("relative"), or Shaw's distance_embedding ("relative_key",
// Wav2Vec2-BERT only).
enum class ConformerPositions { None, Relative, RelativeKey };

struct ConformerLayerDims {
  uint64_t hidden = 0, heads = 0, ffn = 0;
  uint64_t kernel = 0;  // conv_depthwise_kernel_size
  ConformerPositions positions = ConformerPositions::None;
  uint64_t distance_rows = 0;         // relative_key: left + right max positions + 1
  bool depthwise_layer_norm = false;  // Wav2Vec2-BERT: a LayerNorm after the depthwise convolution, not a
                                      // BatchNorm
};

// conv_depthwise_kernel_size (31 by default), which both classes require to be odd.
uint64_t conformer_depthwise_kernel(const ModelConfig& cfg);

// position_embeddings_type as transformers reads it: absent means the config class's default, an explicit
// null means none.
std::string conformer_position_type(const ModelConfig& cfg, std::string_view dflt);

// One Conformer layer under `layer` ("...encoder.layers.N"), in the order named_parameters lists it.
void wav2vec2_conformer_layer(ModelTemplate& t, const std::string& layer, const ConformerLayerDims& d);

// Wav2Vec2FeedForward under `ffn` ("...ffn1"): intermediate_dense and output_dense, both biased.
void wav2vec2_feed_forward(ModelTemplate& t, const std::string& ffn, uint64_t hidden, uint64_t inner);

// The plain conformer attention's four biased projections (linear_q, linear_k, linear_v, linear_out) under
// `attention` ("...self_attn.").
void conformer_attention_projections(ModelTemplate& t, const std::string& attention, uint64_t width);

// The adapter layer SeamlessM4T built and Wav2Vec2-BERT copied (SeamlessM4TConformerAdapterLayer,
// Wav2Vec2BertAdapterLayer) under `p`, at the adapter's width: a residual path (LayerNorm, strided
// convolution of `kernel` to a GLU), the attention path (LayerNorm, the same convolution, an attention
// without position embeddings), then a feed-forward through `ffn`.
void conformer_adapter_layer(ModelTemplate& t, const std::string& p, uint64_t width, uint64_t ffn,
                             uint64_t kernel);

}  // namespace ma::families
