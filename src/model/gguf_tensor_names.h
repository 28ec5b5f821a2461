// Where a tensor of a GGUF file sits, from llama.cpp's naming ("blk.12.attn_q.weight", "token_embd.weight",
// "blk.3.ffn_gate_exps.weight", T5's "dec.blk.0.cross_attn_k.weight"): the same layers, blocks and roles as
// the Hugging Face names of the same weights get (tensor_placement.h), so every analysis reads them alike.
#pragma once
#include <optional>
#include <string_view>

#include "model/tensor_placement.h"

namespace ma {

// nullopt when the name is not in llama.cpp's scheme.
std::optional<TensorPlacement> place_gguf_tensor(std::string_view name);

}  // namespace ma
