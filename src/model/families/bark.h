// Builders of Suno's Bark text-to-speech model grouped in bark() (family_groups.h): BarkModel whole
// (bark_model.cpp) and its three GPT-style sub-models alone (bark_gpt.cpp), each of which transformers can
// save and load with its own config class (model_type semantic, coarse_acoustics, fine_acoustics).
#pragma once
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

void build_bark(const ModelConfig& cfg, ModelTemplate& t);                   // BarkModel
void build_bark_semantic(const ModelConfig& cfg, ModelTemplate& t);          // BarkSemanticModel
void build_bark_coarse_acoustics(const ModelConfig& cfg, ModelTemplate& t);  // BarkCoarseModel
void build_bark_fine_acoustics(const ModelConfig& cfg, ModelTemplate& t);    // BarkFineModel

// Which Bark transformer a sub-config sizes: the semantic (text) and coarse-acoustics models are causal GPTs
// (BarkCausalModel); the fine-acoustics model attends both ways, one embedding table per codebook.
enum class BarkPart { Semantic, Coarse, Fine };

// The tensors of one Bark sub-model under `prefix` ("semantic." in BarkModel, "" alone), read from its
// BarkSubModelConfig / BarkFineConfig with their defaults; adds no stack to the record.
void bark_sub_model(const ModelConfig& cfg, BarkPart part, const std::string& prefix, ModelTemplate& t);

// Sets the record's dimensions from a sub-config and adds its stack of num_layers attention + GELU-MLP
// layers at `prefix`layers: a decoder stack for the causal models, an encoder stack for the fine one.
void record_bark_sub_model(const ModelConfig& cfg, BarkPart part, const std::string& prefix,
                           ModelTemplate& t);

}  // namespace ma::families
