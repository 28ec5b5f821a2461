// Group perceiver: Perceiver IO (model_type perceiver). One config class, whose `architectures` entry picks
// the task class and with it the input preprocessor and the output decoder transformers wires around the
// shared latent encoder (perceiver_parts.cpp builds those pieces, perceiver.cpp picks them per class).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// PerceiverModel, -ForMaskedLM, -ForSequenceClassification, -ForImageClassificationLearned, -Fourier,
// -ConvProcessing and -ForOpticalFlow (perceiver.cpp).
void build_perceiver(const ModelConfig& cfg, ModelTemplate& t);

// The arguments of one PerceiverLayer: an attention block (cross-attention when kv_dim reads inputs other
// than the queries) and its MLP. Unset channels take transformers' defaults (see perceiver_layer).
struct PerceiverLayerDims {
  bool cross = false;
  std::optional<uint64_t> qk_channels = std::nullopt, v_channels = std::nullopt;
  uint64_t heads = 1;
  uint64_t q_dim = 0, kv_dim = 0;
  uint64_t widening = 1;
  std::string qk_key = "", v_key = "";  // the config fields the channels come from, named by a refusal
};
// PerceiverLayer under `p`: attention.self.{layernorm1, layernorm2 (cross only), query, key, value},
// attention.output.dense, layernorm, mlp.dense1 / dense2.
void perceiver_layer(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                     const PerceiverLayerDims& d);

// PerceiverEmbeddings' latents and PerceiverEncoder (one cross-attention over inputs `kv_dim` wide, then
// num_self_attends_per_block self-attention layers) under `p` ("" or "perceiver."), with the record's
// stack and dimensions.
void perceiver_latent_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                              uint64_t kv_dim);

// PerceiverBasicDecoder's trainable queries (output_position_encodings, `positions` x `channels`; a fourier
// decoder has none) and its cross-attention over the latents, `heads` heads, no projection after it.
struct PerceiverDecoderDims {
  uint64_t positions = 0;  // 0: fourier queries (no parameters)
  uint64_t channels = 0;   // num_channels: the queries' width
  std::optional<uint64_t> qk_channels = std::nullopt, v_channels = std::nullopt;
  uint64_t heads = 1;
};
void perceiver_basic_decoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                             const PerceiverDecoderDims& d);

}  // namespace ma::families
