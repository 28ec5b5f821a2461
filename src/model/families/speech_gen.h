// Builders of the audio-generation models grouped in speech_gen() (family_groups.h): the EnCodec neural audio
// codec (encodec.cpp), MusicGen's decoder alone (musicgen_decoder.cpp) and MusicGen / MusicGen Melody whole
// (musicgen.cpp): a T5 text encoder, an EnCodec audio encoder and the decoder that predicts EnCodec codes.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_encodec(const ModelConfig& cfg, ModelTemplate& t);                  // EncodecModel
void build_musicgen_decoder(const ModelConfig& cfg, ModelTemplate& t);         // MusicgenForCausalLM
void build_musicgen_melody_decoder(const ModelConfig& cfg, ModelTemplate& t);  // MusicgenMelodyForCausalLM
void build_musicgen(const ModelConfig& cfg, ModelTemplate& t);  // MusicgenForConditionalGeneration
void build_musicgen_melody(const ModelConfig& cfg,
                           ModelTemplate& t);  // MusicgenMelodyForConditionalGeneration

// EncodecModel's tensors under `prefix` (its SEANet encoder, decoder and the residual vector quantizer's
// codebooks, which are persistent buffers, not parameters), read from an EncodecConfig with its defaults
// (facebook/encodec_24khz's). Adds no stack to the record: the codec has no attention layers.
void encodec_model(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t);

// MusicGen's decoder (MusicgenForCausalLM, or MusicgenModel) under `prefix`, sized by a
// MusicgenDecoderConfig (or MusicgenMelodyDecoderConfig: `melody`, whose layers have no cross-attention);
// sets the record's dimensions and its decoder stack. Returns the decoder's hidden size.
struct MusicgenDecoderForm {
  bool melody = false;
  bool causal_lm = true;  // MusicgenForCausalLM (model.decoder + lm_heads); false: MusicgenModel
};
uint64_t musicgen_decoder(const ModelConfig& cfg, const std::string& prefix, const MusicgenDecoderForm& form,
                          ModelTemplate& t);

}  // namespace ma::families
