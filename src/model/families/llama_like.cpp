// Llama and the decoders that share its layout: embed_tokens, N x (self_attn q/k/v/o + gated MLP + two
// RMSNorms), final norm, lm_head. They differ in defaults, biases, q/k norms and sliding windows.
#include <array>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

struct LlamaStyle {
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool qk_norm = false;
  uint64_t sliding_window = 0;  // applied to every layer (Mistral v0.1 style)
};

void build_llama_style(const ModelConfig& cfg, ModelTemplate& t, const LlamaStyle& s) {
  const ArchSpec& a = t.arch;
  token_embedding(t, "model.embed_tokens.weight", a);
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = s.qkv_bias;
  at.o_bias = s.o_bias;
  at.qk_norm = s.qk_norm;
  t.layers_path = "model.layers";
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    std::string p = "model.layers." + std::to_string(i);
    blocks::attention(t, p + ".self_attn", at);
    blocks::gated_mlp(t, p + ".mlp", a.hidden_size, a.intermediate_size, s.mlp_bias);
    blocks::norm(t, p + ".input_layernorm", a.hidden_size, false);
    blocks::norm(t, p + ".post_attention_layernorm", a.hidden_size, false);
    LayerSpec l;
    l.attention = attention_kind(a.num_attention_heads, a.num_key_value_heads);
    l.sliding_window = s.sliding_window;
    t.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", a.hidden_size, false);
  lm_head(t, "model.embed_tokens.weight", a);
  (void)cfg;
}

void build_llama(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "LlamaForCausalLM";
  read_decoder_dims(cfg, {}, t);
  LlamaStyle s;
  s.qkv_bias = s.o_bias = cfg.flag_or("attention_bias", false);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  build_llama_style(cfg, t, s);
}

void build_mistral(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "MistralForCausalLM";
  DecoderDefaults d;
  d.intermediate_size = 14336;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 4096 * 32;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.sliding_window = cfg.count_or("sliding_window", 0);
  build_llama_style(cfg, t, s);
}

void build_qwen2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen2ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 151936;
  d.intermediate_size = 22016;
  d.max_position_embeddings = 32768;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.qkv_bias = true;  // Qwen2 always biases q/k/v, never o
  build_llama_style(cfg, t, s);
}

void build_qwen3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen3ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 151936;
  d.intermediate_size = 22016;
  d.head_dim = 128;
  d.max_position_embeddings = 32768;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.qkv_bias = s.o_bias = cfg.flag_or("attention_bias", false);
  s.qk_norm = true;
  build_llama_style(cfg, t, s);
}

constexpr std::array kFamilies{
    FamilyBuilder{"llama", build_llama},
    FamilyBuilder{"mistral", build_mistral},
    FamilyBuilder{"qwen2", build_qwen2},
    FamilyBuilder{"qwen3", build_qwen3},
};

}  // namespace

std::span<const FamilyBuilder> llama_like() { return kFamilies; }

}  // namespace ma::families
