// T5's stack as encoders_t5.cpp builds it, for the families that wrap it in modules of their own (UDOP's
// UdopStack: T5's blocks, then 2-D cell embeddings and relative biases).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

struct T5Dims {
  uint64_t d_model = 0, inner = 0, heads = 0, d_ff = 0, buckets = 0;
  bool gated = false;
  bool bias_every_layer = false;  // UMT5
  std::string encoder_attention =
      "SelfAttention";  // LongT5: LocalSelfAttention, TransientGlobalSelfAttention
  bool transient_global =
      false;  // LongT5: a second bias table for the global tokens, their own norm per block
  std::string feed_forward = "DenseReluDense";  // Switch Transformers: mlp
  uint64_t experts = 0;                         // Switch Transformers' sparse layers
  bool router_bias = false;
};

// One T5 stack: blocks of [SelfAttention, (EncDecAttention), DenseReluDense], each sub-layer with its own
// RMS-style T5LayerNorm (weight only); block 0 alone owns the relative position bias, which the others
// reuse, but in UMT5, whose every self-attention learns its own (its cross-attention has none).
void t5_stack(ModelTemplate& t, const std::string& stack, uint64_t layers, const T5Dims& d, bool cross,
              uint64_t sparse_step = 0);

// feed_forward_proj is "{act}" or "gated-{act}"; T5Config rejects anything else. Pop2PianoConfig checks
// nothing: gated when the text before its first '-' is "gated".
bool t5_gated(const ModelConfig& cfg, std::string_view dflt, bool validated = true);

}  // namespace ma::families
