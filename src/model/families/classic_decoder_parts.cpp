#include "model/families/classic_decoder_parts.h"

#include "model/blocks.h"

namespace ma::families::classic {

std::string_view key_used(const ModelConfig& cfg, Key k) {
  return !k.alias.empty() && !cfg.has(k.name) && cfg.has(k.alias) ? k.alias : k.name;
}

uint64_t dim_of(const ModelConfig& cfg, Key k, uint64_t dflt) {
  return cfg.dim_or(key_used(cfg, k), dflt);
}

void read_dims(const ModelConfig& cfg, const DimKeys& k, const DecoderDefaults& d, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.vocab_size = cfg.dim_or("vocab_size", d.vocab_size);
  a.hidden_size = dim_of(cfg, k.hidden, d.hidden_size);
  a.num_layers = cfg.layers_or(key_used(cfg, k.layers), d.num_hidden_layers);
  a.num_attention_heads = dim_of(cfg, k.heads, d.num_attention_heads);
  a.num_key_value_heads = a.num_attention_heads;
  if (a.hidden_size % a.num_attention_heads != 0)
    cfg.fail(key_used(cfg, k.heads), "must divide the hidden size (" + std::to_string(a.hidden_size) + ")");
  a.head_dim = a.hidden_size / a.num_attention_heads;
  a.max_position_embeddings = dim_of(cfg, k.positions, d.max_position_embeddings);
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", d.tie_word_embeddings);
}

uint64_t width_or_4x(const ModelConfig& cfg, std::string_view key, uint64_t hidden) {
  return cfg.has(key) ? cfg.dim(key) : 4 * hidden;
}

void check_kv_heads(const ModelConfig& cfg, std::string_view key, const ArchitectureRecord& a) {
  if (a.num_attention_heads % a.num_key_value_heads != 0)
    cfg.fail(key, "must divide the attention heads (" + std::to_string(a.num_attention_heads) + ")");
}

void proj(ModelTemplate& t, const std::string& prefix, uint64_t in, uint64_t out, bool bias, Weights w) {
  if (w == Weights::Linear) return blocks::linear(t, prefix, in, out, bias);
  t.add(prefix + ".weight", {in, out});
  if (bias) t.add(prefix + ".bias", {out});
}

void plain_mlp(ModelTemplate& t, const std::string& prefix, const Names& names, uint64_t hidden,
               uint64_t inter, bool bias, Weights w) {
  proj(t, prefix + "." + std::string(names[0]), hidden, inter, bias, w);
  proj(t, prefix + "." + std::string(names[1]), inter, hidden, bias, w);
}

void fused_attention(ModelTemplate& t, const std::string& prefix, const Names& names,
                     const ArchitectureRecord& a, bool bias, Weights w) {
  uint64_t qkv = (a.num_attention_heads + 2 * a.num_key_value_heads) * a.head_dim;
  proj(t, prefix + "." + std::string(names[0]), a.hidden_size, qkv, bias, w);
  proj(t, prefix + "." + std::string(names[1]), a.num_attention_heads * a.head_dim, a.hidden_size, bias, w);
}

void layer_norm(ModelTemplate& t, const std::string& prefix, uint64_t dim) {
  blocks::norm(t, prefix, dim, true);
}

void causal_lm_head(ModelTemplate& t, const std::string& embedding, const Head& h) {
  const ArchitectureRecord& a = t.arch;
  const std::string weight = h.name + ".weight";
  const std::string stored = h.disk_name.empty() ? weight : h.disk_name;
  if (a.tie_word_embeddings) {
    t.tie(weight, embedding);
    t.known_extras.push_back({stored, "tied copy of " + embedding + " that some checkpoints store"});
  } else {
    TemplateTensor& w = t.add(weight, {a.vocab_size, h.in ? h.in : a.hidden_size});
    if (!h.disk_name.empty()) w.disk.push_back({h.disk_name, w.shape});
  }
  if (h.bias) t.add(h.name + ".bias", {a.vocab_size});
}

// Encoder-decoder use (add_cross_attention) gives every block a cross-attention with separate q and fused kv.
void gpt2_cross_attention(ModelTemplate& t, const std::string& p, uint64_t hidden, Weights w) {
  proj(t, p + ".crossattention.c_attn", hidden, 2 * hidden, true, w);
  proj(t, p + ".crossattention.q_attn", hidden, hidden, true, w);
  proj(t, p + ".crossattention.c_proj", hidden, hidden, true, w);
  layer_norm(t, p + ".ln_cross_attn", hidden);
}

void gpt2_body(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix, Weights w) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size;
  const bool cross = cfg.flag_or("add_cross_attention", false);
  token_embedding(t, prefix + "wte.weight", a);
  blocks::embedding(t, prefix + "wpe.weight", a.max_position_embeddings, h);
  decoder_stack(t, prefix + "h", [&](const std::string& p) {
    layer_norm(t, p + ".ln_1", h);
    fused_attention(t, p + ".attn", {"c_attn", "c_proj"}, a, true, w);
    layer_norm(t, p + ".ln_2", h);
    if (cross) gpt2_cross_attention(t, p, h, w);
    plain_mlp(t, p + ".mlp", {"c_fc", "c_proj"}, h, a.intermediate_size, true, w);
  });
  layer_norm(t, prefix + "ln_f", h);
}

}  // namespace ma::families::classic
