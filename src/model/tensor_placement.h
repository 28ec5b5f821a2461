// Where a tensor sits in a model, from its name alone: the stack and layer index it belongs to, the block
// (embedding, attention, mlp, moe-router, moe-expert, shared-expert, mamba, linear-attention, short-conv,
// rg-lru, norm, lm-head, vision, ...) and its role inside the block (q, k, v, o, qkv, gate, up, down, router,
// ...). Works on in-memory and on-disk names of every supported family, and on names no template predicted.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ma {

// The blocks, one name table (tensor_placement.cpp).
enum class Block : uint8_t {
  Embedding,
  Attention,
  CrossAttention,
  Mlp,
  MoeRouter,
  MoeExpert,
  SharedExpert,
  Mamba,
  LinearAttention,
  ShortConv,  // LFM2's gated short convolution
  RgLru,      // RecurrentGemma's recurrent block: its linears, conv and RG-LRU
  Rwkv,       // RWKV's time mixing: its key, value, receptance and output, decay and token-shift mixes
  Mlstm,      // xLSTM's mLSTM layer: q, k, v, the output gate, input and forget gates, its norm and output
  Norm,
  LmHead,
  Vision,
  VisionProjector,
  Audio,  // an audio tower (Qwen2-Audio's audio_tower): like a vision tower, no text token runs it
  // Modules that turn the language model's output into speech (the talker of Qwen2.5-Omni and Qwen3-Omni,
  // their token2wav / code2wav): run after it, only when the model speaks, so no text token runs them either.
  SpeechOutput,
  Mtp,
  Quantization,
  Buffer,
  Other
};
std::string_view block_name(Block b);  // embedding, attention, cross-attention, mlp, moe-router, ...
// The towers and their projectors, what feeds the language model and no text token runs, and the speech
// output, which reads it and no text token runs either.
inline bool is_tower(Block b) {
  return b == Block::Vision || b == Block::VisionProjector || b == Block::Audio || b == Block::SpeechOutput;
}

struct TensorPlacement {
  std::optional<uint32_t> layer;  // index inside the stack
  // Length of the module-list prefix of the name the layer index belongs to, e.g. "model.layers",
  // "visual.blocks", "encoder.block" (kept as a length: the name already holds the text).
  uint16_t stack_length = 0;
  Block block = Block::Other;
  std::string role;
};

TensorPlacement place_tensor(std::string_view name);

// Whether a role in an attention block is one of its projections: q, k, v, o, a fused qkv, and MLA's
// low-rank down and up projections (which stand for q, k and v). Not the other tensors such a block holds
// (the DSA indexer's norm, T5's relative position buckets, gpt-oss's sinks).
bool is_attention_projection_role(std::string_view role);

// A tensor name's last component ("weight_scale_inv") and the rest, its module
// ("model.layers.0.mlp.up_proj"); a name without a dot is all leaf, with no module.
std::string_view leaf_of(std::string_view name);
std::string_view module_of(std::string_view name);

}  // namespace ma
