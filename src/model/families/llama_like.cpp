// Llama and the decoders that share its layout: embed_tokens, N x (self_attn + MLP + per-layer norms), final
// norm, lm_head. They differ in defaults, biases, q/k norms, fused projections, which norms a layer carries
// and which layers attend through a sliding window; one parameterised builder covers them all.
#include <array>
#include <string_view>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

enum class QkNorm : uint8_t {
  None,
  PerHead,     // RMSNorm over head_dim, shared by all heads (Qwen3, Gemma-3)
  FullWidth,   // RMSNorm over the whole q / k projection (OLMo-2)
  HeadMatrix,  // LayerNorm weight of shape [heads, head_dim] (Cohere)
};

enum class Mlp : uint8_t {
  Gated,       // gate_proj / up_proj / down_proj
  FusedGated,  // gate_up_proj [2I, H] / down_proj (Phi-3)
  Plain,       // c_fc / c_proj without a gate (StarCoder2)
};

struct LlamaStyle {
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool norm_bias = false;  // LayerNorm with a bias (StarCoder2), else weight-only RMSNorm / LayerNorm
  bool fused_qkv = false;  // one qkv_proj instead of q/k/v (Phi-3)
  QkNorm qk_norm = QkNorm::None;
  Mlp mlp = Mlp::Gated;
  // Norms each layer owns, in module order; Cohere runs attention and MLP in parallel after one norm, OLMo-2
  // only normalises outputs, Gemma-2/3 wrap the MLP in a second pair.
  std::vector<std::string_view> layer_norms{"input_layernorm", "post_attention_layernorm"};
  uint64_t sliding_window = 0;   // applied to every layer (Mistral v0.1 style) unless `windows` is set
  std::vector<uint64_t> windows;  // per-layer window (0: full attention), for alternating stacks
};

void llama_attention(ModelTemplate& t, const std::string& prefix, const ArchSpec& a, const LlamaStyle& s) {
  if (s.fused_qkv) {
    uint64_t qkv = (a.num_attention_heads + 2 * a.num_key_value_heads) * a.head_dim;
    blocks::linear(t, prefix + ".qkv_proj", a.hidden_size, qkv, s.qkv_bias);
    blocks::linear(t, prefix + ".o_proj", a.num_attention_heads * a.head_dim, a.hidden_size, s.o_bias);
    return;
  }
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = s.qkv_bias;
  at.o_bias = s.o_bias;
  at.qk_norm = s.qk_norm == QkNorm::PerHead || s.qk_norm == QkNorm::FullWidth;
  if (s.qk_norm == QkNorm::FullWidth) at.qk_norm_width = a.num_attention_heads * a.head_dim;
  blocks::attention(t, prefix, at);
  if (s.qk_norm == QkNorm::HeadMatrix) {
    t.add(prefix + ".q_norm.weight", {a.num_attention_heads, a.head_dim});
    t.add(prefix + ".k_norm.weight", {a.num_key_value_heads, a.head_dim});
  }
}

void llama_mlp(ModelTemplate& t, const std::string& prefix, const ArchSpec& a, const LlamaStyle& s) {
  switch (s.mlp) {
    case Mlp::Gated:
      blocks::gated_mlp(t, prefix, a.hidden_size, a.intermediate_size, s.mlp_bias);
      break;
    case Mlp::FusedGated:
      blocks::linear(t, prefix + ".gate_up_proj", a.hidden_size, 2 * a.intermediate_size, s.mlp_bias);
      blocks::linear(t, prefix + ".down_proj", a.intermediate_size, a.hidden_size, s.mlp_bias);
      break;
    case Mlp::Plain:
      blocks::linear(t, prefix + ".c_fc", a.hidden_size, a.intermediate_size, s.mlp_bias);
      blocks::linear(t, prefix + ".c_proj", a.intermediate_size, a.hidden_size, s.mlp_bias);
      break;
  }
}

void build_llama_style(ModelTemplate& t, const LlamaStyle& s) {
  const ArchSpec& a = t.arch;
  token_embedding(t, "model.embed_tokens.weight", a);
  t.layers_path = "model.layers";
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    std::string p = "model.layers." + std::to_string(i);
    llama_attention(t, p + ".self_attn", a, s);
    llama_mlp(t, p + ".mlp", a, s);
    for (std::string_view n : s.layer_norms)
      blocks::norm(t, p + "." + std::string(n), a.hidden_size, s.norm_bias);
    LayerSpec l;
    l.attention = attention_kind(a.num_attention_heads, a.num_key_value_heads);
    l.sliding_window = s.windows.empty() ? s.sliding_window : s.windows[i];
    t.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", a.hidden_size, s.norm_bias);
  lm_head(t, "model.embed_tokens.weight", a);
}

// Per-layer windows of stacks that interleave sliding and full attention: `layer_types` when the config
// lists them, else every `period`-th layer is full attention and the others slide (Gemma-2: 2, Gemma-3: 6).
std::vector<uint64_t> interleaved_windows(const ModelConfig& cfg, uint64_t layers, uint64_t window,
                                          uint64_t period) {
  std::vector<uint64_t> w;
  std::vector<std::string> types = cfg.strings("layer_types");
  if (types.empty()) {
    for (uint64_t i = 0; i < layers; ++i) w.push_back((i + 1) % period ? window : 0);
    return w;
  }
  if (types.size() != layers)
    cfg.fail("layer_types", "must list one type per layer (" + std::to_string(layers) + ")");
  for (const std::string& ty : types) {
    if (ty == "sliding_attention") w.push_back(window);
    else if (ty == "full_attention") w.push_back(0);
    else cfg.fail("layer_types", "entries must be sliding_attention or full_attention, not \"" + ty + "\"");
  }
  return w;
}

// Gemma-1/2/3 share their config defaults, apart from what each generation changed.
DecoderDefaults gemma_defaults() {
  DecoderDefaults d;
  d.vocab_size = 256000;
  d.hidden_size = 2304;
  d.intermediate_size = 9216;
  d.num_hidden_layers = 26;
  d.num_attention_heads = 8;
  d.num_key_value_heads = 4;
  d.head_dim = 256;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 8192;
  return d;
}

LlamaStyle attention_bias_style(const ModelConfig& cfg) {
  LlamaStyle s;
  s.qkv_bias = s.o_bias = cfg.flag_or("attention_bias", false);
  return s;
}

void build_llama(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "LlamaForCausalLM";
  read_decoder_dims(cfg, {}, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  build_llama_style(t, s);
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
  build_llama_style(t, s);
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
  build_llama_style(t, s);
}

void build_qwen3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Qwen3ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 151936;
  d.intermediate_size = 22016;
  d.head_dim = 128;
  d.max_position_embeddings = 32768;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.qk_norm = QkNorm::PerHead;
  build_llama_style(t, s);
}

void build_gemma(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "GemmaForCausalLM";
  DecoderDefaults d = gemma_defaults();
  d.hidden_size = 3072;
  d.intermediate_size = 24576;
  d.num_hidden_layers = 28;
  d.num_attention_heads = 16;
  d.num_key_value_heads = 16;
  read_decoder_dims(cfg, d, t);
  build_llama_style(t, attention_bias_style(cfg));
}

// Gemma-2/3: sandwich norms around attention and MLP, sliding and full attention interleaved.
LlamaStyle gemma_sandwich_style(const ModelConfig& cfg, const ArchSpec& a, uint64_t window, uint64_t period) {
  LlamaStyle s = attention_bias_style(cfg);
  s.layer_norms = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                   "post_feedforward_layernorm"};
  s.windows = interleaved_windows(cfg, a.num_layers, window, period);
  return s;
}

void build_gemma2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma2ForCausalLM";
  read_decoder_dims(cfg, gemma_defaults(), t);
  // Gemma2Config has no sliding_window_pattern: without layer_types every other layer slides.
  build_llama_style(t, gemma_sandwich_style(cfg, t.arch, cfg.count_or("sliding_window", 4096), 2));
}

void build_gemma3_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Gemma3ForCausalLM";
  DecoderDefaults d = gemma_defaults();
  d.vocab_size = 262208;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  uint64_t window = cfg.count_or("sliding_window", 4096);
  // Bidirectional (embedding) variants halve the window, as Gemma3TextConfig does for flash attention bounds.
  if (cfg.flag_or("use_bidirectional_attention", false)) window = window / 2 + 1;
  LlamaStyle s = gemma_sandwich_style(cfg, t.arch, window, cfg.dim_or("sliding_window_pattern", 6));
  s.qk_norm = QkNorm::PerHead;
  build_llama_style(t, s);
}

void build_phi3(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Phi3ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 32064;
  d.hidden_size = 3072;
  d.intermediate_size = 8192;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;  // Phi-3 projections never carry biases, whatever attention_bias says
  s.fused_qkv = true;
  s.mlp = Mlp::FusedGated;
  s.sliding_window = cfg.count_or("sliding_window", 0);
  build_llama_style(t, s);
}

void build_cohere(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "CohereForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 256000;
  d.hidden_size = 8192;
  d.intermediate_size = 22528;
  d.num_hidden_layers = 40;
  d.num_attention_heads = 64;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 8192;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.layer_norms = {"input_layernorm"};
  if (cfg.flag_or("use_qk_norm", false)) s.qk_norm = QkNorm::HeadMatrix;
  build_llama_style(t, s);
}

void build_olmo2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Olmo2ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 50304;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.qk_norm = QkNorm::FullWidth;
  s.layer_norms = {"post_attention_layernorm", "post_feedforward_layernorm"};
  build_llama_style(t, s);
}

void build_starcoder2(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "Starcoder2ForCausalLM";
  DecoderDefaults d;
  d.vocab_size = 49152;
  d.hidden_size = 3072;
  d.intermediate_size = 12288;
  d.num_hidden_layers = 30;
  d.num_attention_heads = 24;
  d.num_key_value_heads = 2;
  d.tie_word_embeddings = true;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.qkv_bias = s.o_bias = s.mlp_bias = cfg.flag_or("use_bias", true);
  s.norm_bias = true;  // nn.LayerNorm keeps its bias even when use_bias is false
  s.mlp = Mlp::Plain;
  s.sliding_window = cfg.count_or("sliding_window", 0);
  build_llama_style(t, s);
}

constexpr std::array kFamilies{
    FamilyBuilder{"llama", build_llama},
    FamilyBuilder{"mistral", build_mistral},
    FamilyBuilder{"qwen2", build_qwen2},
    FamilyBuilder{"qwen3", build_qwen3},
    FamilyBuilder{"gemma", build_gemma},
    FamilyBuilder{"gemma2", build_gemma2},
    FamilyBuilder{"gemma3_text", build_gemma3_text},
    FamilyBuilder{"phi3", build_phi3},
    FamilyBuilder{"cohere", build_cohere},
    FamilyBuilder{"olmo2", build_olmo2},
    FamilyBuilder{"starcoder2", build_starcoder2},
};

}  // namespace

std::span<const FamilyBuilder> llama_like() { return kFamilies; }

}  // namespace ma::families
