// Towers llava_like.cpp builds inside its composites that are also configured alone (standalone_towers.cpp):
// their defaults and builders, shared so a standalone tower is exactly the composite's.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/multimodal_towers.h"
#include "model/model_template.h"

namespace ma::families {

// Idefics3VisionConfig's defaults (SmolVLMVisionConfig's are the same) under the tower's model_type.
VitDefaults idefics3_vision_defaults(std::string_view vision_type);

// Qwen2AudioEncoderConfig's and VoxtralEncoderConfig's defaults: Whisper-large-v3's encoder. Its positions
// are a frozen nn.Embedding, a parameter that num_parameters counts.
AudioEncoderDefaults whisper_large_v3_encoder();

// InternVLVisionModel under `p` (embeddings, encoder.layer.N, the final norm unless mean pooling replaces
// it); returns its width.
uint64_t internvit(ModelTemplate& t, const std::string& p, const ModelConfig& v);

}  // namespace ma::families
