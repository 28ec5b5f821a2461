// MiniMax-Text-01 and MiniMax-M1 (transformers' MiniMaxForCausalLM, model_type minimax; the Hub's remote-code
// MiniMaxText01ForCausalLM / MiniMaxM1ForCausalLM, minimax_text_01 / minimax_m1): Mixtral's mixture in every
// layer under two kinds of attention. Most layers run lightning attention (MiniMaxLightningAttention), a
// linear attention whose state per sequence is one head_dim x head_dim matrix per head: q, k and v of every
// head from one qkv_proj, a sigmoid output_gate, an RMSNorm over all heads and out_proj, no bias anywhere.
// The others run softmax GQA (q/k/v/o_proj). Checkpoints keep Mixtral's expert layout
// (block_sparse_moe.experts.N.w1/w3/w2) and store each router in float32.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// Which layers run lightning attention. transformers reads layer_types; the remote-code configs, and the
// Hub's MiniMax-Text-01 and M1, give attn_type_list (0 lightning, 1 softmax), which MiniMaxConfig does not
// translate. With neither, MiniMaxConfig alternates from softmax at layer 0; the remote classes have no
// such default, so their configs must list the kinds.
std::vector<bool> lightning_layers(const ModelConfig& cfg, uint64_t layers, bool native) {
  std::vector<bool> lightning(layers);
  if (cfg.has("layer_types")) {
    const std::vector<std::string> types = cfg.strings("layer_types");
    if (types.size() != layers)
      cfg.fail("layer_types", "must list one type per layer (" + std::to_string(layers) + ")");
    for (uint64_t i = 0; i < layers; ++i) {
      if (types[i] != "linear_attention" && types[i] != "full_attention")
        cfg.fail("layer_types",
                 "must hold \"linear_attention\" or \"full_attention\", not \"" + types[i] + "\"");
      lightning[i] = types[i] == "linear_attention";
    }
  } else if (cfg.has("attn_type_list")) {
    const std::vector<int64_t> kinds = cfg.ints("attn_type_list");
    if (kinds.size() != layers)
      cfg.fail("attn_type_list", "must list one kind per layer (" + std::to_string(layers) + ")");
    for (uint64_t i = 0; i < layers; ++i) {
      if (kinds[i] != 0 && kinds[i] != 1)
        cfg.fail("attn_type_list", "must hold 0 (lightning) or 1 (softmax)");
      lightning[i] = kinds[i] == 0;
    }
  } else if (native) {
    for (uint64_t i = 0; i < layers; ++i) lightning[i] = i % 2 == 1;
  } else {
    cfg.fail("attn_type_list", "must list each layer's attention (0 lightning, 1 softmax)");
  }
  return lightning;
}

// MiniMaxLightningAttention's weights, and its decay tables: persistent buffers (slope_rate [h, 1, 1],
// query_decay and key_decay [h, B, 1], diagonal_decay [1, h, B, B] for blocks of B tokens) that transformers
// computes when it builds the layer and no checkpoint stores.
void lightning_attention_layer(ModelTemplate& t, const std::string& p, uint64_t hidden, uint64_t heads,
                               uint64_t head_dim, uint64_t block) {
  const uint64_t width = heads * head_dim;
  blocks::linear(t, p + ".qkv_proj", hidden, 3 * width, false);
  blocks::linear(t, p + ".output_gate", hidden, width, false);
  blocks::linear(t, p + ".out_proj", width, hidden, false);
  blocks::norm(t, p + ".norm", width, false);
  const std::array<std::pair<const char*, Shape>, 4> decay{{{".slope_rate", {heads, 1, 1}},
                                                            {".query_decay", {heads, block, 1}},
                                                            {".key_decay", {heads, block, 1}},
                                                            {".diagonal_decay", {1, heads, block, block}}}};
  for (const auto& [leaf, shape] : decay) {
    TemplateTensor& b = t.add(p + leaf, shape);
    b.kind = TensorKind::Buffer;
    b.stored = false;
    b.rebuilt_on_load = true;
  }
}

void build_minimax(const ModelConfig& cfg, ModelTemplate& t) {
  const bool native = cfg.string_or("model_type", "minimax") == "minimax";
  t.arch.architecture = native                                            ? "MiniMaxForCausalLM"
                        : cfg.string_or("model_type", "") == "minimax_m1" ? "MiniMaxM1ForCausalLM"
                                                                          : "MiniMaxText01ForCausalLM";
  DecoderDefaults d;  // MiniMaxConfig's (Mixtral's sizes)
  d.intermediate_size = 14336;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 4096 * 32;
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  a.num_experts = cfg.dim_or(cfg.has("num_local_experts") ? "num_local_experts" : "num_experts", 8);
  a.experts_per_token = cfg.dim_or("num_experts_per_tok", 2);
  if (a.experts_per_token > a.num_experts)
    cfg.fail("num_experts_per_tok",
             "must not exceed the number of experts (" + std::to_string(a.num_experts) + ")");
  a.moe_intermediate_size = a.intermediate_size;
  if (cfg.count_or("shared_intermediate_size", 0) != 0)
    cfg.fail("shared_intermediate_size",
             "must be 0: no released MiniMax has a shared expert, nor transformers");
  const uint64_t block = cfg.dim_or("block_size", 256);
  if (block > 65536) cfg.fail("block_size", "is larger than any real model's (65,536)");
  const std::vector<bool> lightning = lightning_layers(cfg, a.num_layers, native);

  const uint64_t h = a.hidden_size, e = a.num_experts;
  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i), moe = p + ".block_sparse_moe";
    LayerSpec l = attention_layer(a, 0, Ffn::Moe);
    if (lightning[i]) {
      lightning_attention_layer(t, p + ".self_attn", h, a.num_attention_heads, a.head_dim, block);
      l.mixer = Mixer::LinearAttention;
      l.state.key_heads = l.state.value_heads = a.num_attention_heads;
      l.state.key_head_dim = l.state.value_head_dim = a.head_dim;
    } else {
      blocks::attention(t, p + ".self_attn", standard_attention(a));
    }
    TemplateTensor& router = t.add(p + ".mlp.gate.weight", {e, h});
    router.disk.push_back({moe + ".gate.weight", router.shape, DType::F32});
    blocks::fused_experts(t, p + ".mlp.experts", e, h, a.intermediate_size,
                          {moe + ".experts", "w1", "w3", "w2"});
    blocks::norm(t, p + ".input_layernorm", h, false);
    blocks::norm(t, p + ".post_attention_layernorm", h, false);
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", h, false);
  lm_head(t, "model.embed_tokens.weight", a);
}

constexpr std::array kLightningAttentionFamilies{
    FamilyBuilder{"minimax", build_minimax},
    FamilyBuilder{"minimax_text_01", build_minimax},
    FamilyBuilder{"minimax_m1", build_minimax},
};

}  // namespace

std::span<const FamilyBuilder> lightning_attention() {
  return kLightningAttentionFamilies;
}

}  // namespace ma::families
