#include "model/families/decoder_llama.h"

namespace ma::families {
namespace {

void llama_attention(ModelTemplate& t, const std::string& prefix, const ArchitectureRecord& a,
                     const LlamaStyle& s) {
  if (s.fused_qkv) {
    // Phi3Attention, the fused form's source, registers o_proj before qkv_proj.
    uint64_t qkv = (a.num_attention_heads + 2 * a.num_key_value_heads) * a.head_dim;
    blocks::linear(t, prefix + ".o_proj", a.num_attention_heads * a.head_dim, a.hidden_size, s.o_bias);
    blocks::linear(t, prefix + ".qkv_proj", a.hidden_size, qkv, s.qkv_bias);
    return;
  }
  blocks::Attention at = standard_attention(a);
  at.qkv_bias = s.qkv_bias;
  at.o_bias = s.o_bias;
  at.qk_norm = s.qk_norm == QkNorm::PerHead || s.qk_norm == QkNorm::FullWidth;
  at.q_norm = s.q_norm;
  at.k_norm = s.k_norm;
  if (s.qk_norm == QkNorm::FullWidth) at.qk_norm_width = a.num_attention_heads * a.head_dim;
  blocks::attention(t, prefix, at);
  if (s.qk_norm == QkNorm::HeadMatrix) {
    t.add(prefix + ".q_norm.weight", {a.num_attention_heads, a.head_dim});
    t.add(prefix + ".k_norm.weight", {a.num_key_value_heads, a.head_dim});
  }
  if (s.qk_norm == QkNorm::HeadList) {
    for (uint64_t h = 0; h < a.num_attention_heads; ++h)
      t.add(prefix + ".q_layernorm.norms." + std::to_string(h) + ".weight", {a.head_dim});
    for (uint64_t h = 0; h < a.num_key_value_heads; ++h)
      t.add(prefix + ".k_layernorm.norms." + std::to_string(h) + ".weight", {a.head_dim});
  }
}

void llama_mlp(ModelTemplate& t, const std::string& prefix, const ArchitectureRecord& a,
               const LlamaStyle& s) {
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
    case Mlp::Ungated:
      blocks::linear(t, prefix + ".up_proj", a.hidden_size, a.intermediate_size, s.mlp_bias);
      blocks::linear(t, prefix + ".down_proj", a.intermediate_size, a.hidden_size, s.mlp_bias);
      break;
    case Mlp::Fc:
      blocks::linear(t, prefix + ".fc1", a.hidden_size, a.intermediate_size, s.mlp_bias);
      blocks::linear(t, prefix + ".fc2", a.intermediate_size, a.hidden_size, s.mlp_bias);
      break;
  }
  if (s.xielu) {
    t.add(prefix + ".act_fn.alpha_p", {1});
    t.add(prefix + ".act_fn.alpha_n", {1});
    t.add(prefix + ".act_fn.beta", {}).kind = TensorKind::Buffer;
    t.add(prefix + ".act_fn.eps", {}).kind = TensorKind::Buffer;
  }
}

}  // namespace

void llama_style_decoder(ModelTemplate& t, const std::string& prefix, const LlamaStyle& s) {
  const ArchitectureRecord& a = t.arch;
  token_embedding(t, prefix + "embed_tokens.weight", a);
  StackSpec& stack = t.arch.add_stack(StackRole::Decoder, prefix + "layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    std::string p = stack.path + "." + std::to_string(i);
    llama_attention(t, p + ".self_attn", a, s);
    llama_mlp(t, p + ".mlp", a, s);
    if (s.norm_weights)
      for (std::string_view n : s.layer_norms)
        blocks::norm(t, p + "." + std::string(n), a.hidden_size, s.norm_bias);
    if (s.layer_extras) s.layer_extras(t, p);
    stack.layers.push_back(attention_layer(a, s.windows.empty() ? s.sliding_window : s.windows[i]));
  }
  if (s.norm_weights) blocks::norm(t, prefix + "norm", a.hidden_size, s.norm_bias);
}

void llama_causal_lm(ModelTemplate& t, const LlamaStyle& s) {
  llama_style_decoder(t, "model.", s);
  lm_head(t, "model.embed_tokens.weight", t.arch);
}

LlamaStyle attention_bias_style(const ModelConfig& cfg) {
  LlamaStyle s;
  s.qkv_bias = s.o_bias = cfg.flag_or("attention_bias", false);
  return s;
}

LlamaStyle read_llama_text(const ModelConfig& cfg, ModelTemplate& t) {
  read_decoder_dims(cfg, {}, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  return s;
}

LlamaStyle read_mistral_text(const ModelConfig& cfg, ModelTemplate& t, uint64_t default_window) {
  DecoderDefaults d;
  d.intermediate_size = 14336;
  d.num_key_value_heads = 8;
  d.max_position_embeddings = 4096 * 32;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.sliding_window = cfg.count_or("sliding_window", default_window);
  return s;
}

LlamaStyle read_ministral3_text(const ModelConfig& cfg, ModelTemplate& t) {
  DecoderDefaults d;  // Ministral3Config's: Ministral-3-8B's sizes
  d.vocab_size = 131072;
  d.intermediate_size = 14336;
  d.num_hidden_layers = 34;
  d.num_key_value_heads = 8;
  d.head_dim = 128;
  d.max_position_embeddings = 262144;
  read_decoder_dims(cfg, d, t);
  return LlamaStyle{};  // no biases, no q/k norms; sliding_window only masks
}

LlamaStyle read_qwen2_text(const ModelConfig& cfg, ModelTemplate& t) {
  DecoderDefaults d;
  d.vocab_size = 151936;
  d.intermediate_size = 22016;
  d.max_position_embeddings = 32768;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s;
  s.qkv_bias = true;  // Qwen2 always biases q/k/v, never o
  s.windows = qwen_windows(cfg, t.arch.num_layers, 28);
  return s;
}

LlamaStyle read_qwen3_text(const ModelConfig& cfg, ModelTemplate& t) {
  DecoderDefaults d;
  d.vocab_size = 151936;
  d.intermediate_size = 22016;
  d.head_dim = 128;
  d.max_position_embeddings = 32768;
  read_decoder_dims(cfg, d, t);
  LlamaStyle s = attention_bias_style(cfg);
  s.qk_norm = QkNorm::PerHead;
  s.windows = qwen_windows(cfg, t.arch.num_layers, 28);
  return s;
}

void heads_split_hidden(const ModelConfig& cfg, ArchitectureRecord& a) {
  if (a.hidden_size % a.num_attention_heads != 0)
    cfg.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(a.hidden_size) + ")");
  a.head_dim = a.hidden_size / a.num_attention_heads;
}

LlamaStyle read_stablelm_text(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.norm = NormKind::LayerNorm;
  DecoderDefaults d;
  d.vocab_size = 50304;
  d.hidden_size = 2560;
  d.intermediate_size = 6912;
  d.max_position_embeddings = 4096;
  read_decoder_dims(cfg, d, t);
  heads_split_hidden(cfg, t.arch);
  LlamaStyle s;
  s.qkv_bias = cfg.flag_or("use_qkv_bias", false);
  s.norm_bias = true;  // nn.LayerNorm
  return s;
}

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

std::vector<uint64_t> interleaved_windows(const ModelConfig& cfg, uint64_t layers, uint64_t window,
                                          uint64_t period, bool last_is_full) {
  std::vector<uint64_t> w;
  std::vector<std::string> types = cfg.strings("layer_types");
  if (types.empty()) {
    for (uint64_t i = 0; i < layers; ++i) w.push_back((i + 1) % period ? window : 0);
  } else {
    if (types.size() != layers)
      cfg.fail("layer_types", "must list one type per layer (" + std::to_string(layers) + ")");
    for (const std::string& ty : types) {
      if (last_is_full && w.size() + 1 == layers)
        w.push_back(0);  // overridden, so never checked
      else if (ty == "sliding_attention")
        w.push_back(window);
      else if (ty == "full_attention")
        w.push_back(0);
      else
        cfg.fail("layer_types", "entries must be sliding_attention or full_attention, not \"" + ty + "\"");
    }
    return w;
  }
  if (last_is_full) w.back() = 0;
  return w;
}

LlamaStyle gemma_sandwich_style(const ModelConfig& cfg, const ArchitectureRecord& a, uint64_t window,
                                uint64_t period) {
  LlamaStyle s = attention_bias_style(cfg);
  s.layer_norms = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                   "post_feedforward_layernorm"};
  s.windows = interleaved_windows(cfg, a.num_layers, window, period);
  return s;
}

void gemma3_text_decoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix,
                         bool bidirectional_halves_window) {
  DecoderDefaults d = gemma_defaults();
  d.vocab_size = 262208;
  d.max_position_embeddings = 131072;
  read_decoder_dims(cfg, d, t);
  uint64_t window = cfg.count_or("sliding_window", 4096);
  // Bidirectional (embedding) variants halve the window, as Gemma3TextConfig does for flash attention bounds.
  if (bidirectional_halves_window && cfg.flag_or("use_bidirectional_attention", false))
    window = window / 2 + 1;
  LlamaStyle s = gemma_sandwich_style(cfg, t.arch, window, cfg.dim_or("sliding_window_pattern", 6));
  s.qk_norm = QkNorm::PerHead;
  llama_style_decoder(t, prefix, s);
}

}  // namespace ma::families
