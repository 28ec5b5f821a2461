// What SeamlessM4TModel and SeamlessM4Tv2Model build alike (seamless_m4t.cpp, seamless_m4t_v2.cpp): the text
// translation model (shared embedding, text encoder, Conformer speech encoder with its adapter, text decoder,
// LM head), the text-to-unit model's encoder and the code HiFi-GAN vocoder. The two versions differ in the
// speech encoder's Conformer layers and in the text-to-unit decoder, which each file builds.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/model_template.h"

namespace ma::families {

// Both config classes' defaults are their large checkpoints' (facebook/hf-seamless-m4t-large,
// facebook/seamless-m4t-v2-large): 24 + 24 text layers of 1024 (FFN 8192), 6 + 6 text-to-unit layers.
struct SeamlessDims {
  uint64_t hidden = 0, vocab = 0, t2u_vocab = 0;
  StackDims text_encoder, text_decoder, t2u_encoder, t2u_decoder;
  bool tied = true;
};
// Everything both versions build before the text-to-unit decoder, in SeamlessM4TModel's registration order:
// shared, text_encoder, speech_encoder (v1's or v2's Conformer layers), text_decoder, lm_head and the
// text-to-unit encoder (t2u_model.model.encoder: a SeamlessM4TEncoder without embeddings), with the record.
// `v2` picks SeamlessM4Tv2Model's class, defaults and speech layers.
SeamlessDims seamless_model_before_t2u_decoder(const ModelConfig& cfg, ModelTemplate& t, bool v2);
// Self-attention (+ cross_attention), ffn.fc1 / ffn.fc2 and three LayerNorms: one text or unit layer.
void seamless_text_layer(ModelTemplate& t, const std::string& layer, uint64_t hidden, uint64_t ffn,
                         bool cross);
// The variance predictor (duration predictor) under `p`: conv1, ln1, conv2, ln2 and a one-output proj.
void seamless_variance_predictor(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden,
                                 uint64_t kernel);
// SeamlessM4TCodeHifiGan / SeamlessM4Tv2CodeHifiGan under `p` ("vocoder."), the same in both versions.
void seamless_code_hifigan(const ModelConfig& cfg, ModelTemplate& t, const std::string& p);

}  // namespace ma::families
