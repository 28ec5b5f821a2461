#include "model/families/decoder_common.h"

namespace ma::families {

void read_decoder_dims(const ModelConfig& cfg, const DecoderDefaults& d, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.vocab_size = cfg.dim_or("vocab_size", d.vocab_size);
  a.hidden_size = cfg.dim_or("hidden_size", d.hidden_size);
  const json::Value* widths = cfg.raw("intermediate_size");
  if (!(d.intermediate_list && widths && widths->is_array()))
    a.intermediate_size = cfg.dim_or("intermediate_size", d.intermediate_size);
  a.num_layers = cfg.layers_or("num_hidden_layers", d.num_hidden_layers);
  a.num_attention_heads = cfg.dim_or("num_attention_heads", d.num_attention_heads);
  a.num_key_value_heads = cfg.dim_or("num_key_value_heads",
                                     d.num_key_value_heads ? d.num_key_value_heads : a.num_attention_heads);
  if (cfg.has("head_dim")) {
    a.head_dim = cfg.dim("head_dim");
  } else if (d.head_dim) {
    a.head_dim = d.head_dim;
  } else {
    if (a.hidden_size % a.num_attention_heads != 0)
      cfg.fail("num_attention_heads", "must divide hidden_size (" + std::to_string(a.hidden_size) + ")");
    a.head_dim = a.hidden_size / a.num_attention_heads;
  }
  if (a.num_attention_heads % a.num_key_value_heads != 0)
    cfg.fail("num_key_value_heads",
             "must divide num_attention_heads (" + std::to_string(a.num_attention_heads) + ")");
  a.max_position_embeddings = cfg.count_or("max_position_embeddings", d.max_position_embeddings);
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", d.tie_word_embeddings);
}

void token_embedding(ModelTemplate& t, const std::string& name, const ArchitectureRecord& a) {
  blocks::embedding(t, name, a.vocab_size, a.hidden_size);
}

void lm_head(ModelTemplate& t, const std::string& embedding_name, const ArchitectureRecord& a,
             const std::string& name) {
  if (a.tie_word_embeddings)
    t.tie(name, embedding_name);
  else
    t.add(name, {a.vocab_size, a.hidden_size});
}

blocks::Attention standard_attention(const ArchitectureRecord& a) {
  blocks::Attention at;
  at.hidden = a.hidden_size;
  at.heads = a.num_attention_heads;
  at.kv_heads = a.num_key_value_heads;
  at.head_dim = a.head_dim;
  return at;
}

LayerSpec attention_layer(const ArchitectureRecord& a, uint64_t window, Ffn ffn) {
  LayerSpec l;
  l.attention.kind = attention_kind_of(a.num_attention_heads, a.num_key_value_heads);
  set_window(l.attention, window);
  l.ffn.kind = ffn;
  return l;
}

void record_vision_tower(ModelTemplate& t, std::string path, uint64_t hidden, uint64_t layers, uint64_t heads,
                         uint64_t head_dim, uint64_t intermediate, uint64_t patch, uint64_t image) {
  StackSpec& s = t.arch.add_stack(StackRole::Vision, std::move(path), hidden);
  s.patch_size = patch;
  s.image_size = image;
  LayerSpec l;
  l.attention.heads = l.attention.kv_heads = heads;
  l.attention.head_dim = head_dim;
  l.ffn.intermediate = intermediate;
  s.layers.assign(layers, l);
}

void record_projector(ModelTemplate& t, std::string path) {
  t.arch.add_stack(StackRole::Projector, std::move(path), t.arch.hidden_size);
}

std::vector<bool> sparse_from_mlp_layer_types(const ModelConfig& cfg, uint64_t layers,
                                              uint64_t leading_dense) {
  const std::vector<std::string> types = cfg.strings("mlp_layer_types");
  std::vector<bool> sparse(layers);
  if (types.empty()) {
    for (uint64_t i = 0; i < layers; ++i) sparse[i] = i >= leading_dense;
    return sparse;
  }
  if (types.size() != layers)
    cfg.fail("mlp_layer_types", "must list one type per layer (" + std::to_string(layers) + ")");
  for (uint64_t i = 0; i < layers; ++i) {
    if (types[i] != "dense" && types[i] != "sparse")
      cfg.fail("mlp_layer_types", "each entry must be \"dense\" or \"sparse\", not \"" + types[i] + "\"");
    sparse[i] = types[i] == "sparse";
  }
  return sparse;
}

uint64_t window_or_none(const ModelConfig& cfg, uint64_t dflt) {
  const json::Value* w = cfg.raw("sliding_window");
  return w && w->is_null() ? 0 : cfg.count_or("sliding_window", dflt);
}

std::vector<uint64_t> qwen_windows(const ModelConfig& cfg, uint64_t layers,
                                   uint64_t max_window_layers_default) {
  const uint64_t window = cfg.flag_or("use_sliding_window", false) ? cfg.count_or("sliding_window", 4096) : 0;
  const uint64_t first_windowed = cfg.count_or("max_window_layers", max_window_layers_default);
  const std::vector<std::string> types = cfg.strings("layer_types");
  if (!types.empty() && types.size() != layers)
    cfg.fail("layer_types", "must name one type per hidden layer");
  std::vector<uint64_t> w(layers, 0);
  for (uint64_t i = 0; i < layers; ++i)
    if (types.empty() ? i >= first_windowed : types[i] == "sliding_attention") w[i] = window;
  return w;
}

void set_window(AttentionShape& at, uint64_t window, Span span) {
  at.window = window;
  at.span = window ? span : Span::Full;
}

}  // namespace ma::families
