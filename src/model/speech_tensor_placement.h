// Placement rules of the speech models whose module names no text model shares: Granite Speech's root
// Conformer, the text-to-speech side of VITS, HiFi-GAN and SpeechT5, SpeechT5's pre-nets, the heads of
// wav2vec 2.0's relatives.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "model/tensor_name_parts.h"
#include "model/tensor_placement.h"

namespace ma::placement {

bool root_conformer(const Parts& parts);
std::optional<Block> text_to_speech_block(const Parts& parts);
// wav2vec 2.0's relatives: their root heads, SEW's feature projection, the adapter's and SEW's upsampling
// projections, with the role to give them.
std::optional<std::pair<Block, std::string_view>> speech_encoder_block(const Parts& parts);
std::optional<TensorPlacement> speech_prenet_placement(const Parts& parts, std::string_view module,
                                                       const std::string& role);

}  // namespace ma::placement
