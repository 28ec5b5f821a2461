// Stored tensors that inference does not load: the extras (TensorKind::Extra: a multi-token-prediction
// layer, a head stored beside the embedding it is tied to, names no family predicts), which transformers
// builds no module for and drops on load, and the quantization scales stored with them (an FP8 MTP layer's
// weight_scale_inv). vLLM and SGLang load an MTP layer only as the draft model of speculative decoding.
// The report's inference weights and plan's weights both leave these out.
#pragma once
#include <vector>

#include "model/inventory.h"

namespace ma {

// Index-aligned with inv.tensors: true for each stored tensor inference does not load.
std::vector<bool> unloaded_tensors(const Inventory& inv);

}  // namespace ma
