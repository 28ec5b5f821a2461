// Microsoft's SpeechT5 in group speecht5 (family_groups.h): one encoder-decoder shared by speech recognition,
// text-to-speech and voice conversion, each task wrapping it in its own pre- and post-nets
// (speecht5_model.cpp), and the HiFi-GAN vocoder its speech outputs go through (speecht5_hifigan.cpp).
// speecht5.cpp lists them.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// SpeechT5Model / ForSpeechToText / ForTextToSpeech / ForSpeechToSpeech (microsoft/speecht5_asr, _tts, _vc)
void build_speecht5(const ModelConfig& cfg, ModelTemplate& t);
void build_speecht5_hifigan(const ModelConfig& cfg,
                            ModelTemplate& t);  // SpeechT5HifiGan (speecht5_hifigan)

}  // namespace ma::families
