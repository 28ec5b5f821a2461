// RecurrentGemma (Griffin; RecurrentGemmaForCausalLM): Gemma's embeddings and MLP around two kinds of
// temporal block, cycled through block_types ("recurrent", "recurrent", "attention" by default). A recurrent
// block projects the input twice (linear_x, linear_y: lru_width), runs the x branch through a causal
// depthwise conv of conv1d_width taps and the RG-LRU, a real-gated linear recurrence whose input and
// recurrence gates are block-diagonal (num_attention_heads blocks, each [w, w], applied as x @ W), and gates
// it with gelu(y) before linear_out. An attention block is local MQA over attention_window_size tokens with
// partial RoPE; o_proj always has a bias. Every Linear but the head and q/k/v has a bias (PyTorch's
// default), the MLP included, and intermediate_size is twice the width of each MLP branch (the converter
// split DeepMind's stacked up projection).
#include <array>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// layers_block_type: block_types cycled over the layers ((block_types * 100)[:layers] in transformers, so
// at most 100 cycles). The Hub's 2B configs spell the list `_block_types`, which transformers does not read:
// it builds the default cycle for them, as here (the same cycle for every released model).
std::vector<bool> recurrent_layers(const ModelConfig& cfg, uint64_t layers) {
  std::vector<std::string> types{"recurrent", "recurrent", "attention"};
  if (cfg.has("block_types")) types = cfg.strings("block_types");
  if (types.empty() || layers > 100 * types.size())
    cfg.fail("block_types", "must list at least one type, and its 100 cycles must cover num_hidden_layers (" +
                                std::to_string(layers) + ")");
  std::vector<bool> recurrent(layers);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string& type = types[i % types.size()];
    if (type != "recurrent" && type != "attention")
      cfg.fail("block_types", "entries must be \"recurrent\" or \"attention\", not \"" + type + "\"");
    recurrent[i] = type == "recurrent";
  }
  return recurrent;
}

LayerSpec recurrent_block(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t width,
                          uint64_t blocks, uint64_t kernel) {
  blocks::linear(t, p + "linear_y", hidden, width, true);
  blocks::linear(t, p + "linear_x", hidden, width, true);
  blocks::linear(t, p + "linear_out", width, hidden, true);
  t.add(p + "conv_1d.weight", {width, 1, kernel});
  t.add(p + "conv_1d.bias", {width});
  const uint64_t w = width / blocks;
  t.add(p + "rg_lru.recurrent_param", {width});
  for (const char* gate : {"rg_lru.input_gate_", "rg_lru.recurrent_gate_"}) {
    t.add(p + gate + "weight", {blocks, w, w});
    t.add(p + gate + "bias", {blocks, w});
  }
  LayerSpec l;
  l.mixer = Mixer::RgLru;
  l.state.inner = width;
  l.state.heads = blocks;
  l.state.conv_kernel = kernel;
  return l;
}

void build_recurrent_gemma(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "RecurrentGemmaForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 256000;
  d.hidden_size = 2560;
  d.intermediate_size = 3 * 2560;
  d.num_hidden_layers = 26;
  d.num_attention_heads = 10;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 0;  // none: the recurrence and the window bound nothing
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, branch = a.intermediate_size / 2;
  const uint64_t width = cfg.dim_or("lru_width", h), kernel = cfg.dim_or("conv1d_width", 4);
  if (width % a.num_attention_heads != 0)
    cfg.fail("lru_width", "must split into num_attention_heads (" + std::to_string(a.num_attention_heads) +
                              ") equal gate blocks");
  const uint64_t window = cfg.dim_or("attention_window_size", 2048);
  const bool qkv_bias = cfg.flag_or("attention_bias", false);
  // The RG-LRU's state stays float32 whatever the weights' dtype (transformers and DeepMind's code).
  a.ssm_cache_dtype = DType::F32;
  const std::vector<bool> recurrent = recurrent_layers(cfg, a.num_layers);

  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    blocks::norm(t, p + "temporal_pre_norm", h, false);
    LayerSpec l;
    if (recurrent[i]) {
      l = recurrent_block(t, p + "temporal_block.", h, width, a.num_attention_heads, kernel);
    } else {
      blocks::Attention at = standard_attention(a);
      at.qkv_bias = qkv_bias;
      at.o_bias = true;
      blocks::attention(t, p + "temporal_block", at);
      l = attention_layer(a, window);
    }
    blocks::norm(t, p + "channel_pre_norm", h, false);
    blocks::gated_mlp(t, p + "mlp_block", h, branch, true);
    l.ffn.intermediate = branch;
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.final_norm", h, false);
  lm_head(t, "model.embed_tokens.weight", a);
}

constexpr std::array kRecurrentGemmaFamilies{FamilyBuilder{"recurrent_gemma", build_recurrent_gemma}};

}  // namespace

std::span<const FamilyBuilder> recurrent_gemma() {
  return kRecurrentGemmaFamilies;
}

}  // namespace ma::families
