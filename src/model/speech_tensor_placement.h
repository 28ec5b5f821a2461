// Placement rules of the speech models whose module names no text model shares: Granite Speech's root
// Conformer, the text-to-speech side of VITS, HiFi-GAN and SpeechT5, SpeechT5's pre-nets.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "model/tensor_name_parts.h"
#include "model/tensor_placement.h"

namespace ma::placement {

bool root_conformer(const Parts& parts);
std::optional<Block> text_to_speech_block(const Parts& parts);
std::optional<TensorPlacement> speech_prenet_placement(const Parts& parts, std::string_view module,
                                                       const std::string& role);

}  // namespace ma::placement
