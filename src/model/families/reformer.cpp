// Reformer (google/reformer-*): reversible layers of LSH or chunked local attention and axial position
// embeddings. The template is what ReformerModelWithLMHead and its relatives build.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/seq2seq_classics.h"

namespace ma::families {

namespace {

// ReformerConfig's defaults: 6 reversible layers of 256 (local, lsh alternating), 12 heads of 64, a
// 512-wide feed-forward, 320 symbols, axial positions 64 x 64 split 64 + 192.
struct ReformerDims {
  uint64_t hidden = 0, heads = 0, head_size = 0, ffn = 0, vocab = 0, positions = 0;
  std::vector<std::string> layers;  // "local" or "lsh" per layer
  bool axial = true;
  std::vector<uint64_t> axial_shape, axial_dims;
};

std::vector<uint64_t> positive_list(const ModelConfig& cfg, const std::string& key,
                                    std::vector<uint64_t> dflt) {
  if (!cfg.has(key)) return dflt;
  std::vector<uint64_t> out = cfg.dims_or(key, {});
  if (out.empty() || out.size() > 8) cfg.fail(key, "must list between 1 and 8 axes");
  return out;
}

ReformerDims read_reformer(const ModelConfig& cfg) {
  ReformerDims r;
  r.hidden = cfg.dim_or("hidden_size", 256);
  r.heads = cfg.dim_or("num_attention_heads", 12);
  r.head_size = cfg.dim_or("attention_head_size", 64);
  r.ffn = cfg.dim_or("feed_forward_size", 512);
  r.vocab = cfg.dim_or("vocab_size", 320);
  r.positions = cfg.dim_or("max_position_embeddings", 4096);
  if (cfg.has("attn_layers")) {
    r.layers = cfg.strings("attn_layers");
    cfg.check_layer_list("attn_layers", r.layers.size());
  } else {
    r.layers = {"local", "lsh", "local", "lsh", "local", "lsh"};
  }
  if (r.layers.empty()) cfg.fail("attn_layers", "must name at least one layer");
  for (const std::string& l : r.layers)
    if (l != "local" && l != "lsh")
      cfg.fail("attn_layers", "entries must be 'local' or 'lsh', found '" + l + "'");
  r.axial = cfg.flag_or("axial_pos_embds", true);
  if (r.axial) {
    r.axial_shape = positive_list(cfg, "axial_pos_shape", {64, 64});
    r.axial_dims = positive_list(cfg, "axial_pos_embds_dim", {64, 192});
    if (r.axial_dims.size() != r.axial_shape.size())
      cfg.fail("axial_pos_embds_dim", "needs one width per axis of axial_pos_shape");
    uint64_t sum = 0;
    for (const uint64_t w : r.axial_dims) sum += w;
    if (sum != r.hidden)
      cfg.fail("axial_pos_embds_dim", "widths must sum to hidden_size (" + std::to_string(r.hidden) + ")");
  }
  return r;
}

}  // namespace

void build_reformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ReformerModel");
  const std::string task = supported_task(
      cfg, cls, "Reformer",
      {"Model", "ModelWithLMHead", "ForMaskedLM", "ForSequenceClassification", "ForQuestionAnswering"});
  t.arch.architecture = cls;
  const ReformerDims r = read_reformer(cfg);
  const bool decoder = cfg.flag_or("is_decoder", false);
  // The two language-model classes assert the direction of their attention.
  if (task == "ModelWithLMHead") {
    if (!decoder) cfg.fail("is_decoder", "must be true for ReformerModelWithLMHead (causal attention)");
    if (cfg.count_or("local_num_chunks_after", 0) != 0 &&
        std::find(r.layers.begin(), r.layers.end(), "local") != r.layers.end())
      cfg.fail("local_num_chunks_after", "must be 0 for ReformerModelWithLMHead (causal attention)");
    if (cfg.count_or("lsh_num_chunks_after", 0) != 0 &&
        std::find(r.layers.begin(), r.layers.end(), "lsh") != r.layers.end())
      cfg.fail("lsh_num_chunks_after", "must be 0 for ReformerModelWithLMHead (causal attention)");
  }
  if (task == "ForMaskedLM" && decoder) cfg.fail("is_decoder", "must be false for ReformerForMaskedLM");
  // No class declares a tie: lm_head.decoder is its own matrix whatever tie_word_embeddings says.
  t.arch.tie_word_embeddings = false;
  t.arch.vocab_size = r.vocab;
  t.arch.position = PositionKind::Learned;  // axial factors or a plain table, both learned

  const std::string base = task == "Model" ? "" : "reformer.";
  blocks::embedding(t, base + "embeddings.word_embeddings.weight", r.vocab, r.hidden);
  if (r.axial) {
    // One broadcast factor per axis: [1, .., axial_pos_shape[a], .., 1, axial_pos_embds_dim[a]].
    for (size_t a = 0; a < r.axial_dims.size(); ++a) {
      Shape s(r.axial_shape.size() + 1, 1);
      s[a] = r.axial_shape[a];
      s.back() = r.axial_dims[a];
      t.add(base + "embeddings.position_embeddings.weights." + std::to_string(a), s);
    }
  } else {
    blocks::embedding(t, base + "embeddings.position_embeddings.embedding.weight", r.positions, r.hidden);
  }
  const uint64_t inner = r.heads * r.head_size;
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const std::string layer = base + "encoder.layers." + std::to_string(i);
    blocks::norm(t, layer + ".attention.layer_norm", r.hidden, true);
    const std::string self = layer + ".attention.self_attention";
    // LSH attention shares one projection for queries and keys.
    if (r.layers[i] == "lsh") {
      blocks::linear(t, self + ".query_key", r.hidden, inner, false);
    } else {
      blocks::linear(t, self + ".query", r.hidden, inner, false);
      blocks::linear(t, self + ".key", r.hidden, inner, false);
    }
    blocks::linear(t, self + ".value", r.hidden, inner, false);
    blocks::linear(t, layer + ".attention.output.dense", inner, r.hidden, false);
    blocks::norm(t, layer + ".feed_forward.layer_norm", r.hidden, true);
    blocks::linear(t, layer + ".feed_forward.dense.dense", r.hidden, r.ffn, true);
    blocks::linear(t, layer + ".feed_forward.output.dense", r.ffn, r.hidden, true);
  }
  // Reversible layers carry two residual streams; the final norm and the heads read both, 2 x hidden wide.
  const uint64_t both = 2 * r.hidden;
  blocks::norm(t, base + "encoder.layer_norm", both, true);
  if (task == "ModelWithLMHead" || task == "ForMaskedLM") {
    t.add("lm_head.bias", {r.vocab});  // the head's own parameter precedes its child decoder
    blocks::linear(t, "lm_head.decoder", both, r.vocab, false);
  } else if (task == "ForSequenceClassification") {
    blocks::linear(t, "classifier.dense", both, r.hidden, true);
    blocks::linear(t, "classifier.out_proj", r.hidden, num_labels(cfg), true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", both, num_labels(cfg), true);
  }

  // The record: one stack, MHA of heads x attention_head_size; local layers attend their chunk and
  // local_num_chunks_before earlier ones (a window), LSH layers attend hashed buckets over the whole input.
  ArchitectureRecord& a = t.arch;
  a.hidden_size = r.hidden;
  a.num_layers = r.layers.size();
  a.num_attention_heads = a.num_key_value_heads = r.heads;
  a.head_dim = r.head_size;
  a.intermediate_size = r.ffn;
  a.max_position_embeddings = r.positions;
  StackSpec& s =
      a.add_stack(decoder ? StackRole::Decoder : StackRole::Encoder, base + "encoder.layers", r.hidden);
  const uint64_t chunk = cfg.dim_or("local_attn_chunk_length", 64);
  const uint64_t before = cfg.count_or("local_num_chunks_before", 1);
  for (const std::string& kind : r.layers) {
    LayerSpec l = attention_dense_layer();
    l.attention.heads = l.attention.kv_heads = r.heads;
    l.attention.head_dim = r.head_size;
    l.ffn.intermediate = r.ffn;
    l.ffn.gated = false;
    if (kind == "local") {
      l.attention.span = Span::Sliding;
      l.attention.window = chunk * (before + 1);
    }
    s.layers.push_back(l);
  }
}

}  // namespace ma::families
