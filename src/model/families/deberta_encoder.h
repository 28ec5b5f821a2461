// DeBERTa-v2's encoder (DebertaV2Encoder: post-norm layers with disentangled attention, the relative-position
// table, its LayerNorm and the convolution beside the first layer) as a part of other models: SEW-D
// (sew_d.cpp) copies it into its speech encoder. encoders_deberta.cpp builds it.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// What the encoder reads when config.json omits a field: the config class's defaults, or for the fields no
// DebertaV2Config declares (share_att_key, position_buckets, norm_rel_ebd) the modeling code's getattr
// fallbacks. The initializers are DebertaV2Config's (deberta-v2-xlarge's sizes).
struct DebertaEncoderDefaults {
  uint64_t layers = 24, hidden = 1536, heads = 24, ffn = 6144;
  bool relative_attention = false;
  bool share_att_key = false;
  int64_t position_buckets = -1;                     // -1: none, 2 x max_relative_positions rows
  std::string_view norm_rel_ebd = "none";            // "layer_norm": a LayerNorm over the table
  std::span<const std::string_view> pos_att_type{};  // empty: content attention only
};

// DebertaV2Encoder's modules under `encoder` ("deberta.encoder."), its layers recorded as the Encoder stack
// `encoder`layer.
void deberta_v2_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder,
                        const DebertaEncoderDefaults& defaults);

}  // namespace ma::families
