// Qwen2.5-Omni's speech output (qwen2_5_omni_speech.cpp): the talker, a second decoder that turns the
// thinker's embeddings and states into speech codes, and token2wav, which turns codes into a waveform.
#pragma once
#include <cstdint>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// Qwen2_5OmniTalkerForConditionalGeneration under "talker.", from talker_config with its class's defaults:
// thinker_to_talker_proj from the thinker's width (embedding_size, which must be `thinker_hidden`) to its
// own, a Qwen2 decoder whose embed_tokens rows are embedding_size wide, and the bias-free codec_head.
void qwen2_5_omni_talker(const ModelConfig& talker, uint64_t thinker_hidden, ModelTemplate& t);

// Qwen2_5OmniToken2WavModel under "token2wav.", from token2wav_config: the DiT that turns codes into a mel
// spectrogram (with its ECAPA-TDNN speaker encoder) and the BigVGAN vocoder, stored in float32.
void qwen2_5_omni_token2wav(const ModelConfig& token2wav, ModelTemplate& t);

}  // namespace ma::families
