// Builders of the neural audio codecs and text-to-speech models grouped in audio_codecs_tts()
// (family_groups.h): Descript's DAC (dac.cpp) and X-Codec (xcodec.cpp), which reuses DAC's encoder and
// decoder as its acoustic half; the UnivNet vocoder (univnet.cpp); FastSpeech2Conformer alone and with its
// HiFi-GAN vocoder (fastspeech2_conformer.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_dac(const ModelConfig& cfg, ModelTemplate& t);                    // DacModel
void build_xcodec(const ModelConfig& cfg, ModelTemplate& t);                 // XcodecModel
void build_univnet(const ModelConfig& cfg, ModelTemplate& t);                // UnivNetModel
void build_fastspeech2_conformer(const ModelConfig& cfg, ModelTemplate& t);  // FastSpeech2ConformerModel
void build_fastspeech2_conformer_with_hifigan(const ModelConfig& cfg,
                                              ModelTemplate& t);  // FastSpeech2ConformerWithHifiGan

// The DacConfig fields shaping DAC's encoder and decoder. A DacConfig derives hidden_size (the latent width)
// and upsampling_ratios from the encoder's, unless the config names them (then they win, as every extra
// keyword does): X-Codec's acoustic model names both.
struct DacCodecDims {
  uint64_t encoder_hidden = 64;                    // encoder_hidden_size
  std::vector<uint64_t> downsampling{2, 4, 8, 8};  // downsampling_ratios
  uint64_t decoder_hidden = 1536;                  // decoder_hidden_size
  std::vector<uint64_t> upsampling;                // upsampling_ratios
  uint64_t hidden = 0;                             // hidden_size
};
// Reads `cfg` over `dflt`'s encoder_hidden_size, downsampling_ratios and decoder_hidden_size (DacConfig's
// defaults are descript/dac_16khz's); hidden_size and upsampling_ratios come from `dflt` when it sets them
// (X-Codec's defaults), else are derived as DacConfig does.
DacCodecDims read_dac_codec(const ModelConfig& cfg, DacCodecDims dflt);
// DacEncoder and DacDecoder under `encoder` / `decoder` ("encoder.", "decoder."): plain convolutions, as
// transformers builds them (weight norm only by apply_weight_norm, for training) and as the converted
// checkpoints store them.
void dac_encoder(ModelTemplate& t, const std::string& encoder, const DacCodecDims& d);
void dac_decoder(ModelTemplate& t, const std::string& decoder, const DacCodecDims& d);

}  // namespace ma::families
