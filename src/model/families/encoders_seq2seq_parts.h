// The pieces the encoder-decoder families share (encoders_seq2seq.cpp, encoders_t5.cpp): each stack's sizes
// as its config spells them and the record's description of the stacks.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/families/encoders_common.h"
#include "model/model_template.h"

namespace ma::families {

struct StackDims {
  uint64_t layers = 0;
  LayerDims layer;
};

// `side`_layers, `side`_attention_heads and `side`_ffn_dim (BART's spelling) with the family's defaults.
StackDims read_stack(const ModelConfig& cfg, const std::string& side, uint64_t hidden, uint64_t dflt_layers,
                     uint64_t dflt_heads, uint64_t dflt_ffn);
// BART's layer (and its copies': Whisper's, DETR's): self_attn (k_proj, v_proj, q_proj, out_proj, as
// BartAttention registers them), self_attn_layer_norm, with `cross` encoder_attn and encoder_attn_layer_norm,
// then fc1, fc2 and final_layer_norm.
LayerNames bart_layer_names(bool cross);
// One stack of the record: MHA + dense layers of the stack's widths; decoder layers also attend the encoder.
void describe_stack(ModelTemplate& t, StackRole role, const std::string& path, const StackDims& dims,
                    uint64_t head_dim, uint64_t positions = 0);
// The record's generic dimensions: the decoder's (the encoder's when there is none).
void describe_main(ModelTemplate& t, const StackDims& dec, uint64_t max_positions);

}  // namespace ma::families
