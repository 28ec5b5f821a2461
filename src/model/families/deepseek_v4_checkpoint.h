// DeepSeek-V4's checkpoints as DeepSeek publishes them (deepseek-ai/DeepSeek-V4-Flash, -Pro): their own
// names (layers.N.attn.wq_a, ffn.experts.E.w1, hc_head_fn, no "model." prefix), FP8 linears with a block
// scale beside each weight, FP4 routed experts (two values per byte, one scale per 32) and float32
// hyper-connection, sink and bias tensors. transformers reads them through its conversion mapping
// (conversion_mapping.py, "deepseek_v4": renames, then the per-expert w1/w3 and w2 merged into
// gate_up_proj and down_proj); this gives the template that on-disk form, so that every stored tensor
// matches the module it loads into.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// True for a config in DeepSeek's own form (its legacy compress_ratios list): the one its checkpoints ship
// with. A config transformers wrote lists layer_types instead, beside a checkpoint in transformers' names.
bool deepseek_v4_upstream_form(const ModelConfig& cfg);

// Gives every stored tensor of `t` (built under transformers' names) its upstream on-disk pieces: the
// renamed tensor, its FP8 scale when quantization_config declares fp8 blocks, and the routed experts one
// tensor per expert (FP4-packed with their scales when expert_dtype is fp4).
void use_upstream_checkpoint_names(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma::families
