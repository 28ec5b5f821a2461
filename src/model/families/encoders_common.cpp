#include "model/families/encoders_common.h"

#include <algorithm>

#include "core/error.h"

namespace ma::families {

std::string architecture_of(const ModelConfig& cfg, std::string_view base_class) {
  std::vector<std::string> archs = cfg.strings("architectures");
  return archs.empty() ? std::string(base_class) : archs.front();
}

namespace {

[[noreturn]] void unsupported_class(const ModelConfig& cfg, const std::string& cls) {
  throw Error(ErrorKind::Unsupported, cfg.file(), "architectures",
              "unsupported architecture: " + printable(cls));
}

}  // namespace

std::string supported_task(const ModelConfig& cfg, const std::string& cls, std::string_view family_prefix,
                           std::initializer_list<std::string_view> modelled) {
  return supported_task(cfg, cls, family_prefix,
                        std::span<const std::string_view>(modelled.begin(), modelled.size()));
}

std::string supported_task(const ModelConfig& cfg, const std::string& cls, std::string_view family_prefix,
                           std::span<const std::string_view> modelled) {
  if (cls.compare(0, family_prefix.size(), family_prefix) != 0) unsupported_class(cfg, cls);
  std::string task = cls.substr(family_prefix.size());
  for (std::string_view m : modelled)
    if (task == m) return task;
  unsupported_class(cfg, cls);
}

uint64_t num_labels(const ModelConfig& cfg) {
  if (cfg.has("id2label")) {
    const json::Value* labels = cfg.raw("id2label");
    if (!labels->is_object()) cfg.fail("id2label", "must be an object");
    if (!labels->members().empty()) return labels->members().size();
  }
  return cfg.dim_or("num_labels", 2);
}

uint64_t split_heads(const ModelConfig& cfg, std::string_view heads_key, uint64_t hidden, uint64_t heads) {
  if (hidden % heads != 0)
    cfg.fail(heads_key, "must divide the hidden size (" + std::to_string(hidden) + ")");
  return hidden / heads;
}

namespace {

void attention_projections(ModelTemplate& t, const std::string& prefix, const std::string& q,
                           const std::string& k, const std::string& v, const std::string& o,
                           const LayerDims& d, bool key_first) {
  if (!key_first) blocks::linear(t, prefix + "." + q, d.hidden, d.hidden, d.qkv_bias);
  blocks::linear(t, prefix + "." + k, d.hidden, d.hidden, d.qkv_bias && d.k_bias);
  blocks::linear(t, prefix + "." + v, d.hidden, d.hidden, d.qkv_bias);
  if (key_first) blocks::linear(t, prefix + "." + q, d.hidden, d.hidden, d.qkv_bias);
  blocks::linear(t, prefix + "." + o, d.hidden, d.hidden, d.o_bias);
}

}  // namespace

void longformer_global_projections(ModelTemplate& t, size_t layer_first, const std::string& attention,
                                   uint64_t hidden) {
  for (const char* global : {"query_global", "key_global", "value_global"})
    blocks::linear(t, attention + global, hidden, hidden, true);
  const auto qkv_end = t.tensors.begin() + static_cast<std::ptrdiff_t>(layer_first + 6);
  std::rotate(qkv_end, t.tensors.end() - 6, t.tensors.end());
}

void transformer_layer(ModelTemplate& t, const std::string& prefix, const LayerNames& n, const LayerDims& d) {
  attention_projections(t, prefix, n.q, n.k, n.v, n.o, d, n.key_first);
  blocks::norm(t, prefix + "." + n.attn_norm, d.hidden, true);
  if (!n.cross_q.empty()) {
    attention_projections(t, prefix, n.cross_q, n.cross_k, n.cross_v, n.cross_o, d, n.key_first);
    blocks::norm(t, prefix + "." + n.cross_norm, d.hidden, true);
  }
  blocks::linear(t, prefix + "." + n.fc1, d.hidden, d.ffn, true);
  blocks::linear(t, prefix + "." + n.fc2, d.ffn, d.hidden, true);
  blocks::norm(t, prefix + "." + n.ffn_norm, d.hidden, true);
}

LayerNames bert_layer_names() {
  LayerNames n;
  n.q = "attention.self.query";
  n.k = "attention.self.key";
  n.v = "attention.self.value";
  n.o = "attention.output.dense";
  n.attn_norm = "attention.output.LayerNorm";
  n.fc1 = "intermediate.dense";
  n.fc2 = "output.dense";
  n.ffn_norm = "output.LayerNorm";
  return n;
}

void text_embeddings(ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d) {
  const uint64_t e = d.embedding_width();
  blocks::embedding(t, prefix + "word_embeddings.weight", d.vocab, e);
  if (!d.positions_last) blocks::embedding(t, prefix + "position_embeddings.weight", d.max_positions, e);
  if (d.type_vocab) blocks::embedding(t, prefix + "token_type_embeddings.weight", d.type_vocab, e);
  if (d.embedding_norm) blocks::norm(t, prefix + "LayerNorm", e, true);
  if (d.positions_last) blocks::embedding(t, prefix + "position_embeddings.weight", d.max_positions, e);
}

void text_encoder_body(ModelTemplate& t, const std::string& prefix, const std::string& stack,
                       const LayerNames& names, const TextEncoderDims& d) {
  text_embeddings(t, prefix + "embeddings.", d);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + stack, d.layer.hidden);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, encoder.path + "." + std::to_string(i), names, d.layer);
    encoder.layers.push_back(attention_dense_layer());
  }
}

TextEncoderDims read_bert_dims(const ModelConfig& cfg, const BertDefaults& b) {
  TextEncoderDims d;
  d.vocab = cfg.dim_or("vocab_size", b.vocab);
  d.max_positions = cfg.dim_or("max_position_embeddings", b.positions);
  d.type_vocab = b.type_vocab ? cfg.dim_or("type_vocab_size", b.type_vocab) : 0;
  d.layers = cfg.layers_or("num_hidden_layers", b.layers, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", b.hidden);
  d.layer.heads = cfg.dim_or("num_attention_heads", b.heads);
  d.layer.ffn = cfg.dim_or("intermediate_size", b.ffn);
  split_heads(cfg, "num_attention_heads", d.layer.hidden, d.layer.heads);
  return d;
}

void read_base_encoder_record(const ModelConfig& cfg, const std::string& cls, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = cfg.dim_or("hidden_size", 768);
  a.num_layers = cfg.layers_or("num_hidden_layers", 12, 0);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 12);
  a.head_dim = split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
}

void fill_encoder_record(ModelTemplate& t, const std::string& cls, const TextEncoderDims& d) {
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = d.layer.hidden;
  a.num_layers = d.layers;
  a.vocab_size = d.vocab;
  a.num_attention_heads = a.num_key_value_heads = d.layer.heads;
  a.head_dim = d.layer.hidden / d.layer.heads;
  a.intermediate_size = d.layer.ffn;
  a.max_position_embeddings = d.max_positions;
}

LayerSpec attention_dense_layer() {
  return LayerSpec{};  // softmax attention (MHA) and a dense MLP; widths from the record's dimensions
}

TemplateTensor& tied_or_own(ModelTemplate& t, const std::string& name, const std::string& target, bool tied) {
  if (tied) return t.tie(name, target);
  for (const TemplateTensor& x : t.tensors)
    if (x.name == target) return t.add(name, x.shape);
  throw Error(ErrorKind::Internal, "", name, "copy of unknown tensor " + target);
}

bool read_tie(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true);
  return t.arch.tie_word_embeddings;
}

}  // namespace ma::families
