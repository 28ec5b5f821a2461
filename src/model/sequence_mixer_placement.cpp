// Placement rules of the sequence mixers that are not softmax attention, each spelled by its own modules:
// SEANet's convolution stacks (EnCodec), LFM2's and the Conformers' short convolutions, RecurrentGemma's
// RG-LRU, xLSTM's mLSTM, RWKV's time and channel mixing, Mamba's and the linear-attention layers' mixers.
#include "model/sequence_mixer_placement.h"

#include <array>
#include <utility>

#include "model/tensor_name_tables.h"

namespace ma::placement {

std::optional<std::pair<Block, std::string>> sequence_mixer_block(const Parts& parts, const Parts& inner,
                                                                  std::string_view module, size_t layer_pos,
                                                                  bool in_layer, const std::string& role) {
  // SEANet's convolution stacks (the EnCodec codec's encoder and decoder): each conv is a layer's own module
  // (layers.N.conv), a residual block's (layers.N.block.M.conv) or its shortcut's (layers.N.shortcut.conv),
  // where LFM2's short convolution nests its conv in a conv block (conv.conv). Audio, as their LSTM.
  if (in_layer && module == "conv") {
    size_t at = parts.size();
    while (at > 0 && parts[at - 1].data() != module.data()) --at;  // the module's own part
    if (at >= 2 && (all_digits(parts[at - 2]) || parts[at - 2] == "shortcut")) {
      return std::pair<Block, std::string>{Block::Audio, "conv"};
    }
  }
  // LFM2's short convolution: conv.in_proj, conv.conv, conv.out_proj; a Conformer's convolution module
  // (Parakeet's conv.pointwise_conv1 into a GLU, conv.depthwise_conv, conv.pointwise_conv2) is one too.
  if (in_layer && any_part_in(inner, std::array<std::string_view, 1>{"conv"}) &&
      in(module, std::array<std::string_view, 6>{"conv", "in_proj", "out_proj", "pointwise_conv1",
                                                 "depthwise_conv", "pointwise_conv2"})) {
    return std::pair<Block, std::string>{Block::ShortConv, std::string(module)};
  }
  // RecurrentGemma's recurrent block: temporal_block.{linear_x, linear_y, linear_out, conv_1d, rg_lru.*}
  // (its attention layers' temporal_block holds q/k/v/o_proj).
  if (in_layer &&
      (any_part_in(inner, std::array<std::string_view, 1>{"rg_lru"}) ||
       (any_part_in(inner, std::array<std::string_view, 1>{"temporal_block"}) &&
        in(module, std::array<std::string_view, 4>{"linear_x", "linear_y", "linear_out", "conv_1d"})))) {
    return std::pair<Block, std::string>{Block::RgLru, std::string(module)};
  }
  // xLSTM's blocks.N.mlstm_layer.
  if (in_layer && any_part_in(inner, std::array<std::string_view, 1>{"mlstm_layer"})) {
    return std::pair<Block, std::string>{Block::Mlstm, std::string(module)};
  }
  // RWKV's blocks.N.attention (time mixing, with its own decays and token-shift mixes) and feed_forward
  // (channel mixing: key, value and a receptance gate, its MLP).
  if (in_layer && (in(module, std::array<std::string_view, 3>{"time_decay", "time_first", "receptance"}) ||
                   module.starts_with("time_mix_"))) {
    return std::pair<Block, std::string>{
        any_part_in(inner, std::array<std::string_view, 1>{"feed_forward"}) ? Block::Mlp : Block::Rwkv,
        std::string(module)};
  }
  // Its time mixing's linears sit straight under blocks.N.attention, where BERT's and ViT's keys have a
  // self or attention module between.
  if (in_layer && layer_pos >= 1 && parts[layer_pos - 1] == "blocks" && inner.size() == 4 &&
      inner[1] == "attention" && in(module, std::array<std::string_view, 3>{"key", "value", "output"})) {
    return std::pair<Block, std::string>{Block::Rwkv, std::string(module)};
  }
  // A Mamba leaf inside softmax attention is not Mamba's: Doge's self_attn.dt_proj turns values into its
  // dynamic mask.
  if (any_part_in(inner, std::array<std::string_view, 2>{"linear_attn", "mamba"}) ||
      (in(module, kMambaLeaves) && !any_part_in(inner, kAttentionParts)) ||
      (any_part_in(inner, std::array<std::string_view, 1>{"mixer"}) &&
       in(module, std::array<std::string_view, 3>{"in_proj", "out_proj", "norm"}))) {
    return std::pair<Block, std::string>{any_part_in(inner, std::array<std::string_view, 1>{"linear_attn"})
                                             ? Block::LinearAttention
                                             : Block::Mamba,
                                         role};
  }
  return std::nullopt;
}

}  // namespace ma::placement
