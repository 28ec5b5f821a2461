// The composites of group nested_composites (vision_text_dual_encoder.cpp, rag.cpp, udop.cpp): models made of
// whole sub-models that their configs nest, each built by its own family's builder (nested_model.h).
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// VisionTextDualEncoderModel
void build_vision_text_dual_encoder(const ModelConfig& cfg, ModelTemplate& t);
// RagModel, RagTokenForGeneration, RagSequenceForGeneration
void build_rag(const ModelConfig& cfg, ModelTemplate& t);
// UdopModel, UdopForConditionalGeneration, UdopEncoderModel
void build_udop(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
