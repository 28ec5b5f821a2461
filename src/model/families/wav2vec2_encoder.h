// The model body wav2vec 2.0 and its relatives (HuBERT, WavLM, data2vec-audio, UniSpeech, UniSpeech-SAT, SEW)
// share in transformers - Wav2Vec2Model and the classes copied from it - and the heads their ForCTC and
// ForSequenceClassification classes put on it. Each family says where it differs (a Wav2Vec2Flavour); the
// family files (speech_encoders.cpp, wavlm.cpp, data2vec_audio.cpp, unispeech.cpp, sew.cpp, sew_d.cpp) fill
// one in.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/families/encoders_common.h"
#include "model/families/wav2vec2_parts.h"
#include "model/model_template.h"

namespace ma::families {

// The widths a pre-training head reads: the feature encoder's last convolution and the transformer's.
struct Wav2Vec2Widths {
  uint64_t features = 0, hidden = 0;
};

struct Wav2Vec2Flavour {
  std::string_view prefix;  // class prefix: "Wav2Vec2", "WavLM", "Data2VecAudio"
  std::string_view base;    // attribute of the model in head classes: "wav2vec2", "wavlm", "data2vec_audio"
  std::span<const std::string_view> tasks;  // the class suffixes modelled ("Model", "ForCTC", ...)
  bool masked_spec_embed_always = false;    // UniSpeechSatModel registers it whatever mask_time_prob says
  bool projection_norm_optional = false;    // HuBERT: feat_proj_layer_norm
  bool batch_norm_positions = false;        // HuBERT: conv_pos_batch_norm
  bool adapter = false;                     // the model registers Wav2Vec2Adapter when add_adapter
  bool stable_layer_norm = true;            // false: always post-norm (data2vec-audio's encoder)
  bool every_conv_normed = false;           // data2vec-audio: a LayerNorm after every convolution
  const ConvStackDefaults* conv_defaults = nullptr;  // null: wav2vec2-base's convolutions
  // The encoder's positions under `encoder` ("...encoder."); null: wav2vec2's weight-normed convolution.
  void (*positions)(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder,
                    uint64_t hidden) = nullptr;
  // The modules between the feature encoder and the encoder under the model's prefix `model`; null:
  // wav2vec2's feature_projection (its LayerNorm over the `features`, then the projection to `hidden`).
  void (*projection)(ModelTemplate& t, const std::string& model, uint64_t features,
                     uint64_t hidden) = nullptr;
  // The encoder's transformer under `encoder`, between its positions and after_layers, its stack recorded;
  // null: wav2vec2's LayerNorm, then its layers (each built by `layer`). SEW-D: DeBERTa-v2's encoder.
  void (*transformer)(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder,
                      uint64_t hidden) = nullptr;
  // Modules the encoder registers after its layers (SEW's upsampling); null: none.
  void (*after_layers)(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder,
                       uint64_t hidden) = nullptr;
  // One encoder layer under `layer`; null: wav2vec2's (transformer_layer with its module names).
  void (*layer)(const ModelConfig& cfg, ModelTemplate& t, const std::string& layer, const LayerDims& d,
                uint64_t index) = nullptr;
  // The ForPreTraining class's own modules after the model's; null when "ForPreTraining" is not a task.
  void (*pretraining)(const ModelConfig& cfg, ModelTemplate& t, const Wav2Vec2Widths& w) = nullptr;
};

// Builds the class config.json names (the flavour's prefix + one of its tasks): the model under `base.`
// (no prefix for the bare model), then the head.
void build_wav2vec2_like(const ModelConfig& cfg, ModelTemplate& t, const Wav2Vec2Flavour& f);

// wav2vec2's encoder layer (attention k, v, q, out; layer_norm; feed_forward; final_layer_norm) under
// `layer`.
void wav2vec2_encoder_layer(ModelTemplate& t, const std::string& layer, const LayerDims& d);

// The Gumbel vector quantizer under "quantizer.": codevectors [1, groups x per group, codevector_dim /
// groups] and weight_proj from `input` (the feature width; UniSpeech-SAT's reads the hidden width) to
// groups x per group.
void gumbel_vector_quantizer(const ModelConfig& cfg, ModelTemplate& t, uint64_t input);

}  // namespace ma::families
