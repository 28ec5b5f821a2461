// Microsoft's SpeechT5 in group speecht5 (family_groups.h): one encoder-decoder shared by speech recognition,
// text-to-speech and voice conversion, each task wrapping it in its own pre- and post-nets
// (speecht5_model.cpp), and the HiFi-GAN vocoder its speech outputs go through (speecht5_hifigan.cpp).
// speecht5.cpp lists them.
#pragma once
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// SpeechT5Model / ForSpeechToText / ForTextToSpeech / ForSpeechToSpeech (microsoft/speecht5_asr, _tts, _vc)
void build_speecht5(const ModelConfig& cfg, ModelTemplate& t);
void build_speecht5_hifigan(const ModelConfig& cfg,
                            ModelTemplate& t);  // SpeechT5HifiGan, FastSpeech2ConformerHifiGan (hifigan)

// The residual stack of SpeechT5's speech-decoder postnet under `p` (p.layers.N: a bias-free conv and a
// BatchNorm with its running statistics; mel bins in and out at the ends, speech_decoder_postnet_units
// between), which FastSpeech2Conformer's postnet copies.
void speech_postnet_convs(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t mel);

// The HiFi-GAN vocoder under `p` (SpeechT5HifiGan, or FastSpeech2ConformerHifiGan when `fastspeech2`,
// a copy with other defaults): the mean and scale buffers, the generator and conv_post.
void hifigan_vocoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, bool fastspeech2);

}  // namespace ma::families
