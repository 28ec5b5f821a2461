// MobileBERT, ConvBERT, SqueezeBERT and the Funnel Transformer: BERT's post-LayerNorm encoder made smaller or
// cheaper four ways. MobileBERT computes each layer in a narrow width between bottleneck projections, with
// several feed-forward networks per layer; ConvBERT gives half of each head's width to a span-based
// convolution; SqueezeBERT makes every projection a grouped 1x1 convolution; Funnel pools the sequence
// between blocks of relative-attention layers and upsamples it again in a short decoder.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "model/families/encoders_classic.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// ---- shared ----

// The one-linear task heads of these classes: a label per sequence or token, span logits (num_labels of
// them: these classes do not fix two), one score per choice. Nothing for other tasks.
void linear_task_head(ModelTemplate& t, const std::string& task, uint64_t hidden, uint64_t labels) {
  if (task == "ForSequenceClassification" || task == "ForTokenClassification")
    blocks::linear(t, "classifier", hidden, labels, true);
  else if (task == "ForQuestionAnswering")
    blocks::linear(t, "qa_outputs", hidden, labels, true);
  else if (task == "ForMultipleChoice")
    blocks::linear(t, "classifier", hidden, 1, true);
}

// BERT's masked-LM head as MobileBERT and SqueezeBERT register it: the output bias first (an own Parameter of
// the head), the transform (dense + LayerNorm), then the decoder, whose weight is the word embedding and
// whose bias is that output bias when tie_word_embeddings holds. MobileBERT's decoder is only embedding_size
// wide: an untied `dense` (vocab -> hidden - embedding, no bias) supplies the other rows of its output
// matrix, a tensor of no rows (still in the state_dict) when the two widths agree.
void cls_predictions(ModelTemplate& t, const std::string& word, uint64_t hidden, uint64_t vocab,
                     std::optional<uint64_t> extra_rows, bool tied) {
  const std::string p = "cls.predictions.";
  t.add(p + "bias", {vocab});
  blocks::linear(t, p + "transform.dense", hidden, hidden, true);
  blocks::norm(t, p + "transform.LayerNorm", hidden, true);
  if (extra_rows) blocks::linear(t, p + "dense", vocab, *extra_rows, false);
  tied_or_own(t, p + "decoder.weight", word, tied);
  tied_or_own(t, p + "decoder.bias", p + "bias", tied);
}

// ---- MobileBERT ----

struct MobileBertDims {
  TextEncoderDims d;       // embedding: embedding_size; layer.hidden: hidden_size, the stream between layers
  uint64_t inner = 0;      // true_hidden_size: the width a layer computes in
  uint64_t attention = 0;  // heads x int(inner / heads)
  uint64_t bottleneck = 0;
  uint64_t ffns = 1;  // feed-forward networks per layer
  bool trigram = true, use_bottleneck = true, bottleneck_attention = false, shared_bottleneck = true;
  bool no_norm = true;       // NoNorm (x * weight + bias) instead of LayerNorm
  bool pooler_dense = true;  // classifier_activation: the pooler has a dense, else no parameters
};

// MobileBertConfig's defaults are google/mobilebert-uncased's sizes (but classifier_activation true).
MobileBertDims read_mobilebert(const ModelConfig& cfg) {
  MobileBertDims m;
  TextEncoderDims& d = m.d;
  d.vocab = cfg.dim_or("vocab_size", 30522);
  d.max_positions = cfg.dim_or("max_position_embeddings", 512);
  d.type_vocab = cfg.dim_or("type_vocab_size", 2);
  d.embedding = cfg.dim_or("embedding_size", 128);
  d.layers = cfg.layers_or("num_hidden_layers", 24, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", 512);
  d.layer.heads = cfg.dim_or("num_attention_heads", 4);
  d.layer.ffn = cfg.dim_or("intermediate_size", 512);
  m.trigram = cfg.flag_or("trigram_input", true);
  m.use_bottleneck = cfg.flag_or("use_bottleneck", true);
  m.bottleneck = cfg.dim_or("intra_bottleneck_size", 128);
  m.bottleneck_attention = cfg.flag_or("use_bottleneck_attention", false);
  m.shared_bottleneck = cfg.flag_or("key_query_shared_bottleneck", true);
  // The config class derives true_hidden_size, overwriting the value its Hub config.json stores.
  m.inner = m.use_bottleneck ? m.bottleneck : d.layer.hidden;
  if (d.layer.heads > m.inner)
    cfg.fail("num_attention_heads", "must not exceed the width the layers attend in (true hidden size " +
                                        std::to_string(m.inner) + ")");
  m.attention = d.layer.heads * (m.inner / d.layer.heads);
  const std::string norm = cfg.string_or("normalization_type", "no_norm");
  if (norm != "no_norm" && norm != "layer_norm")
    cfg.fail("normalization_type", "must be \"no_norm\" or \"layer_norm\"");
  m.no_norm = norm == "no_norm";
  // 0 and 1 alike: the layer's own intermediate/output is its only feed-forward network.
  m.ffns = std::max<uint64_t>(1, cfg.count_or("num_feedforward_networks", 4));
  if (d.layers * m.ffns > ModelConfig::kMaxLayers)
    cfg.fail("num_feedforward_networks", "makes more than " + std::to_string(ModelConfig::kMaxLayers) +
                                             " feed-forward networks over " + std::to_string(d.layers) +
                                             " layers");
  m.pooler_dense = cfg.flag_or("classifier_activation", true);
  return m;
}

// NoNorm registers its bias before its weight; "layer_norm" is nn.LayerNorm.
void mobilebert_norm(ModelTemplate& t, const std::string& name, uint64_t dim, bool no_norm) {
  if (!no_norm) return blocks::norm(t, name, dim, true);
  t.add(name + ".bias", {dim});
  t.add(name + ".weight", {dim});
}

// The word table E wide, positions and token types H wide; the trigram input (a token beside its two
// neighbours, 3E) projected to H: embedding_transformation exists even where nothing is concatenated.
void mobilebert_embeddings(ModelTemplate& t, const std::string& prefix, const MobileBertDims& m) {
  const TextEncoderDims& d = m.d;
  const uint64_t h = d.layer.hidden;
  const std::string e = prefix + "embeddings.";
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, d.embedding);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::linear(t, e + "embedding_transformation", d.embedding * (m.trigram ? 3 : 1), h, true);
  mobilebert_norm(t, e + "LayerNorm", h, m.no_norm);
}

// The narrow feed-forward network: intermediate.dense, output.dense and its norm, all `inner` wide.
void mobilebert_ffn(ModelTemplate& t, const std::string& p, const MobileBertDims& m) {
  blocks::linear(t, p + "intermediate.dense", m.inner, m.d.layer.ffn, true);
  blocks::linear(t, p + "output.dense", m.d.layer.ffn, m.inner, true);
  mobilebert_norm(t, p + "output.LayerNorm", m.inner, m.no_norm);
}

// One layer, `p` ending in '.': queries and keys read the (shared) bottleneck, values the full width unless
// use_bottleneck_attention; the bottlenecks project H to B in front and back to H behind; ffn.{j} are the
// extra feed-forward networks before the layer's own.
void mobilebert_layer(ModelTemplate& t, const std::string& p, const MobileBertDims& m) {
  const uint64_t h = m.d.layer.hidden, in = m.inner;
  blocks::linear(t, p + "attention.self.query", in, m.attention, true);
  blocks::linear(t, p + "attention.self.key", in, m.attention, true);
  blocks::linear(t, p + "attention.self.value", m.bottleneck_attention ? in : h, m.attention, true);
  blocks::linear(t, p + "attention.output.dense", in, in, true);
  mobilebert_norm(t, p + "attention.output.LayerNorm", in, m.no_norm);
  mobilebert_ffn(t, p, m);
  if (m.use_bottleneck) {
    blocks::linear(t, p + "output.bottleneck.dense", in, h, true);
    mobilebert_norm(t, p + "output.bottleneck.LayerNorm", h, m.no_norm);
    blocks::linear(t, p + "bottleneck.input.dense", h, m.bottleneck, true);
    mobilebert_norm(t, p + "bottleneck.input.LayerNorm", m.bottleneck, m.no_norm);
    if (m.shared_bottleneck) {
      blocks::linear(t, p + "bottleneck.attention.dense", h, m.bottleneck, true);
      mobilebert_norm(t, p + "bottleneck.attention.LayerNorm", m.bottleneck, m.no_norm);
    }
  }
  for (uint64_t j = 0; j + 1 < m.ffns; ++j) mobilebert_ffn(t, p + "ffn." + std::to_string(j) + ".", m);
}

void build_mobilebert(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  t.arch.position = PositionKind::Learned;
  const std::string cls = architecture_of(cfg, "MobileBertModel");
  const std::string task = supported_task(
      cfg, cls, "MobileBert",
      {"Model", "ForPreTraining", "ForMaskedLM", "ForNextSentencePrediction", "ForSequenceClassification",
       "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"});
  const MobileBertDims m = read_mobilebert(cfg);
  const uint64_t h = m.d.layer.hidden;
  fill_encoder_record(t, cls, m.d);
  t.arch.head_dim = m.inner / m.d.layer.heads;  // heads split the narrow width, not hidden_size
  const std::string prefix = task == "Model" ? "" : "mobilebert.";
  mobilebert_embeddings(t, prefix, m);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < m.d.layers; ++i) {
    mobilebert_layer(t, encoder.path + "." + std::to_string(i) + ".", m);
    encoder.layers.push_back(attention_dense_layer());
  }
  const bool pooler = task == "Model" || task == "ForPreTraining" || task == "ForNextSentencePrediction" ||
                      task == "ForSequenceClassification" || task == "ForMultipleChoice";
  if (pooler && m.pooler_dense) blocks::linear(t, prefix + "pooler.dense", h, h, true);
  if (task == "ForMaskedLM" || task == "ForPreTraining") {
    if (m.d.embedding > h)
      cfg.fail("embedding_size", "must not exceed hidden_size (" + std::to_string(h) +
                                     "): the prediction head adds hidden_size - embedding_size rows");
    cls_predictions(t, prefix + "embeddings.word_embeddings.weight", h, m.d.vocab, h - m.d.embedding,
                    read_tie(cfg, t));
  }
  if (task == "ForPreTraining" || task == "ForNextSentencePrediction")
    blocks::linear(t, "cls.seq_relationship", h, 2, true);
  linear_task_head(t, task, h, num_labels(cfg));
}

// ---- ConvBERT ----

struct ConvBertDims {
  TextEncoderDims d;      // embedding: embedding_size (tables E wide, projected to H when E != H)
  uint64_t heads = 0;     // attention heads: num_attention_heads / head_ratio, at least one
  uint64_t head_dim = 0;  // (hidden / heads) / 2: half of each head's width attends, the other convolves
  uint64_t kernel = 0;
  uint64_t groups = 1;  // num_groups: grouped feed-forward linears
  bool cross_attention = false;
  uint64_t width() const { return heads * head_dim; }
};

// ConvBertConfig's defaults are YituTech/conv-bert-base's sizes.
ConvBertDims read_convbert(const ModelConfig& cfg) {
  ConvBertDims c;
  TextEncoderDims& d = c.d;
  d.vocab = cfg.dim_or("vocab_size", 30522);
  d.max_positions = cfg.dim_or("max_position_embeddings", 512);
  d.type_vocab = cfg.dim_or("type_vocab_size", 2);
  d.embedding = cfg.dim_or("embedding_size", 768);
  d.layers = cfg.layers_or("num_hidden_layers", 12, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", 768);
  d.layer.heads = cfg.dim_or("num_attention_heads", 12);
  d.layer.ffn = cfg.dim_or("intermediate_size", 3072);
  const uint64_t h = d.layer.hidden;
  c.heads = std::max<uint64_t>(1, d.layer.heads / cfg.dim_or("head_ratio", 2));
  if (h % c.heads != 0)
    cfg.fail("num_attention_heads", "divided by head_ratio gives " + std::to_string(c.heads) +
                                        " heads, which must divide hidden_size (" + std::to_string(h) + ")");
  c.head_dim = h / c.heads / 2;
  if (c.head_dim == 0)
    cfg.fail("num_attention_heads",
             "divided by head_ratio leaves each head under two of hidden_size's channels");
  c.kernel = cfg.dim_or("conv_kernel_size", 9);
  c.groups = cfg.dim_or("num_groups", 1);
  if (h % c.groups != 0 || d.layer.ffn % c.groups != 0)
    cfg.fail("num_groups", "must divide hidden_size and intermediate_size");
  c.cross_attention = cfg.flag_or("add_cross_attention", false);
  if (c.cross_attention && !cfg.flag_or("is_decoder", false))
    cfg.fail("add_cross_attention", "needs is_decoder: ConvBERT's layer refuses cross-attention otherwise");
  return c;
}

// Queries, keys and values `width` wide; the span-based dynamic convolution: a separable conv over the
// input (depthwise, pointwise, and its own bias registered before them), the kernels it generates per head
// and its value projection; the output dense reads the attention and convolution halves together (H wide).
void convbert_attention(ModelTemplate& t, const std::string& a, const ConvBertDims& c) {
  const uint64_t h = c.d.layer.hidden, w = c.width();
  const std::string s = a + "self.";
  for (const char* proj : {"query", "key", "value"}) blocks::linear(t, s + proj, h, w, true);
  t.add(s + "key_conv_attn_layer.bias", {w, 1});
  t.add(s + "key_conv_attn_layer.depthwise.weight", {h, 1, c.kernel});
  t.add(s + "key_conv_attn_layer.pointwise.weight", {w, h, 1});
  blocks::linear(t, s + "conv_kernel_layer", w, c.heads * c.kernel, true);
  blocks::linear(t, s + "conv_out_layer", h, w, true);
  blocks::linear(t, a + "output.dense", h, h, true);
  blocks::norm(t, a + "output.LayerNorm", h, true);
}

// nn.Linear, or with num_groups > 1 a GroupedLinearLayer: one [in/G, out/G] block per group (not transposed)
// and one bias over all outputs.
void grouped_linear(ModelTemplate& t, const std::string& name, uint64_t in, uint64_t out, uint64_t groups) {
  if (groups == 1) return blocks::linear(t, name, in, out, true);
  t.add(name + ".weight", {groups, in / groups, out / groups});
  t.add(name + ".bias", {out});
}

void convbert_layer(ModelTemplate& t, const std::string& p, const ConvBertDims& c) {
  const uint64_t h = c.d.layer.hidden, ffn = c.d.layer.ffn;
  convbert_attention(t, p + "attention.", c);
  if (c.cross_attention) convbert_attention(t, p + "crossattention.", c);
  grouped_linear(t, p + "intermediate.dense", h, ffn, c.groups);
  grouped_linear(t, p + "output.dense", ffn, h, c.groups);
  blocks::norm(t, p + "output.LayerNorm", h, true);
}

// The layer's record: fewer, wider-spaced heads than the config's num_attention_heads.
LayerSpec convbert_layer_spec(const ConvBertDims& c) {
  LayerSpec l = attention_dense_layer();
  l.attention.heads = l.attention.kv_heads = c.heads;
  l.attention.head_dim = c.head_dim;
  if (c.cross_attention) l.cross_attention = l.attention;
  return l;
}

// ELECTRA's generator head: LayerNorm (registered first) and dense down to the embedding width, a decoder
// tied to the word embedding with a bias of its own.
void convbert_lm_head(const ModelConfig& cfg, ModelTemplate& t, const std::string& word,
                      const TextEncoderDims& d) {
  const uint64_t e = d.embedding_width();
  blocks::norm(t, "generator_predictions.LayerNorm", e, true);
  blocks::linear(t, "generator_predictions.dense", d.layer.hidden, e, true);
  tied_or_own(t, "generator_lm_head.weight", word, read_tie(cfg, t));
  t.add("generator_lm_head.bias", {d.vocab});
}

void build_convbert(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  t.arch.position = PositionKind::Learned;
  const std::string cls = architecture_of(cfg, "ConvBertModel");
  const std::string task =
      supported_task(cfg, cls, "ConvBert",
                     {"Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice",
                      "ForTokenClassification", "ForQuestionAnswering"});
  const ConvBertDims c = read_convbert(cfg);
  const TextEncoderDims& d = c.d;
  const uint64_t h = d.layer.hidden;
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "convbert.";
  text_embeddings(t, prefix + "embeddings.", d);
  if (d.embedding_width() != h)
    blocks::linear(t, prefix + "embeddings_project", d.embedding_width(), h, true);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    convbert_layer(t, encoder.path + "." + std::to_string(i) + ".", c);
    encoder.layers.push_back(convbert_layer_spec(c));
  }
  if (task == "ForMaskedLM") {
    convbert_lm_head(cfg, t, prefix + "embeddings.word_embeddings.weight", d);
  } else if (task == "ForSequenceClassification") {  // two layers over the first token, as ELECTRA's
    blocks::linear(t, "classifier.dense", h, h, true);
    blocks::linear(t, "classifier.out_proj", h, num_labels(cfg), true);
  } else {
    // Multiple choice pools through SequenceSummary, whose projection ConvBertConfig does not declare.
    if (task == "ForMultipleChoice") classic_encoders::sequence_summary(cfg, t, "sequence_summary", h, {});
    linear_task_head(t, task, h, num_labels(cfg));
  }
}

// ---- SqueezeBERT ----

// The groups of one grouped 1x1 convolution, which must divide both its channel counts.
uint64_t conv_groups(const ModelConfig& cfg, std::string_view key, uint64_t dflt, uint64_t in, uint64_t out) {
  const uint64_t g = cfg.dim_or(key, dflt);
  if (in % g != 0 || out % g != 0)
    cfg.fail(key,
             "must divide the " + std::to_string(in) + " and " + std::to_string(out) + " channels it groups");
  return g;
}

// Every projection is an nn.Conv1d with kernel 1 over channels: weight [out, in / groups, 1], a bias; the
// LayerNorms (lower-case `layernorm` inside layers) normalise channels.
void squeezebert_layer(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t h,
                       uint64_t ffn) {
  blocks::conv1d(t, p + "attention.query", h, h, 1, conv_groups(cfg, "q_groups", 4, h, h));
  blocks::conv1d(t, p + "attention.key", h, h, 1, conv_groups(cfg, "k_groups", 4, h, h));
  blocks::conv1d(t, p + "attention.value", h, h, 1, conv_groups(cfg, "v_groups", 4, h, h));
  blocks::conv1d(t, p + "post_attention.conv1d", h, h, 1, conv_groups(cfg, "post_attention_groups", 1, h, h));
  blocks::norm(t, p + "post_attention.layernorm", h, true);
  blocks::conv1d(t, p + "intermediate.conv1d", h, ffn, 1, conv_groups(cfg, "intermediate_groups", 4, h, ffn));
  blocks::conv1d(t, p + "output.conv1d", ffn, h, 1, conv_groups(cfg, "output_groups", 4, ffn, h));
  blocks::norm(t, p + "output.layernorm", h, true);
}

// SqueezeBertModel builds its pooler in every task class, token-level ones included.
void build_squeezebert(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  t.arch.position = PositionKind::Learned;
  const std::string cls = architecture_of(cfg, "SqueezeBertModel");
  const std::string task =
      supported_task(cfg, cls, "SqueezeBert",
                     {"Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice",
                      "ForTokenClassification", "ForQuestionAnswering"});
  TextEncoderDims d;
  d.vocab = cfg.dim_or("vocab_size", 30522);
  d.max_positions = cfg.dim_or("max_position_embeddings", 512);
  d.type_vocab = cfg.dim_or("type_vocab_size", 2);
  d.layers = cfg.layers_or("num_hidden_layers", 12, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", 768);
  d.layer.heads = cfg.dim_or("num_attention_heads", 12);
  d.layer.ffn = cfg.dim_or("intermediate_size", 3072);
  const uint64_t h = d.layer.hidden;
  split_heads(cfg, "num_attention_heads", h, d.layer.heads);
  if (cfg.dim_or("embedding_size", 768) != h)
    cfg.fail("embedding_size",
             "must equal hidden_size (" + std::to_string(h) + "), as SqueezeBERT's encoder asserts");
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "transformer.";
  text_embeddings(t, prefix + "embeddings.", d);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layers", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    squeezebert_layer(cfg, t, encoder.path + "." + std::to_string(i) + ".", h, d.layer.ffn);
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::linear(t, prefix + "pooler.dense", h, h, true);
  if (task == "ForMaskedLM")
    cls_predictions(t, prefix + "embeddings.word_embeddings.weight", h, d.vocab, std::nullopt,
                    read_tie(cfg, t));
  linear_task_head(t, task, h, num_labels(cfg));
}

// ---- Funnel Transformer ----

struct FunnelDims {
  uint64_t vocab = 0, hidden = 0, heads = 0, head_dim = 0, inner = 0;
  std::vector<uint64_t> block_sizes, block_repeats;  // layers of each block; how often each block runs them
  uint64_t decoder_layers = 0;
  uint64_t layers() const {
    uint64_t n = 0;
    for (uint64_t s : block_sizes) n += s;
    return n;
  }
};

// A list of per-block counts, each in [1, kMaxLayers]; `dflt` when absent.
std::vector<uint64_t> block_list(const ModelConfig& cfg, std::string_view key, std::vector<uint64_t> dflt) {
  if (!cfg.has(key)) return dflt;
  const json::Value* v = cfg.raw(key);
  if (v->is_array()) cfg.check_layer_list(key, v->items().size());
  std::vector<uint64_t> out;
  for (int64_t n : cfg.ints(key)) {
    if (n < 1 || static_cast<uint64_t>(n) > ModelConfig::kMaxLayers)
      cfg.fail(key, "entries must be between 1 and " + std::to_string(ModelConfig::kMaxLayers));
    out.push_back(static_cast<uint64_t>(n));
  }
  if (out.empty()) cfg.fail(key, "must list at least one block");
  return out;
}

// FunnelConfig's defaults are funnel-transformer/small's sizes. hidden_size and num_attention_heads are
// aliases of d_model and n_head; num_hidden_layers is the sum of block_sizes, which the class refuses to set.
FunnelDims read_funnel(const ModelConfig& cfg) {
  FunnelDims f;
  f.vocab = cfg.dim_or("vocab_size", 30522);
  f.hidden = cfg.dim_or(classic_encoders::aliased(cfg, "hidden_size", "d_model"), 768);
  f.heads = cfg.dim_or(classic_encoders::aliased(cfg, "num_attention_heads", "n_head"), 12);
  f.head_dim = cfg.dim_or("d_head", 64);  // independent of d_model / n_head
  f.inner = cfg.dim_or("d_inner", 3072);
  f.block_sizes = block_list(cfg, "block_sizes", {4, 4, 4});
  f.block_repeats = block_list(cfg, "block_repeats", std::vector<uint64_t>(f.block_sizes.size(), 1));
  if (f.block_repeats.size() != f.block_sizes.size())
    cfg.fail("block_repeats",
             "must have one entry per block of block_sizes (" + std::to_string(f.block_sizes.size()) + ")");
  cfg.check_layer_list("block_sizes", f.layers());
  uint64_t runs = 0;
  for (size_t b = 0; b < f.block_sizes.size(); ++b) runs += f.block_sizes[b] * f.block_repeats[b];
  cfg.check_layer_list("block_repeats", runs);
  f.decoder_layers = cfg.layers_or("num_decoder_layers", 2, 0);
  for (std::string_view key : {"num_hidden_layers", "num_blocks"})
    if (cfg.has(key))
      cfg.fail(key, "cannot be set for Funnel: block_sizes gives the blocks and their layers");
  const std::string pooling = cfg.string_or("pooling_type", "mean");
  if (pooling != "mean" && pooling != "max") cfg.fail("pooling_type", "must be \"mean\" or \"max\"");
  const std::string attention = cfg.string_or("attention_type", "relative_shift");
  if (attention != "relative_shift" && attention != "factorized")
    cfg.fail("attention_type", "must be \"relative_shift\" or \"factorized\"");
  return f;
}

// One FunnelLayer, `p` ending in '.': relative multi-head attention (its own Parameters, the position kernel
// and biases and segment embeddings, registered before its Linears; q_head has no bias), then the FFN.
void funnel_layer(ModelTemplate& t, const std::string& p, const FunnelDims& f) {
  const uint64_t d = f.hidden, n = f.heads, dh = f.head_dim;
  const std::string a = p + "attention.";
  t.add(a + "r_w_bias", {n, dh});
  t.add(a + "r_r_bias", {n, dh});
  t.add(a + "r_kernel", {d, n, dh});
  t.add(a + "r_s_bias", {n, dh});
  t.add(a + "seg_embed", {2, n, dh});
  blocks::linear(t, a + "q_head", d, n * dh, false);
  blocks::linear(t, a + "k_head", d, n * dh, true);
  blocks::linear(t, a + "v_head", d, n * dh, true);
  blocks::linear(t, a + "post_proj", n * dh, d, true);
  blocks::norm(t, a + "layer_norm", d, true);
  blocks::linear(t, p + "ffn.linear_1", d, f.inner, true);
  blocks::linear(t, p + "ffn.linear_2", f.inner, d, true);
  blocks::norm(t, p + "ffn.layer_norm", d, true);
}

// The word embedding, the encoder's blocks (encoder.blocks.{b}.{j}) and, for FunnelModel, the decoder.
// block_repeats runs a block's layers again on the same weights: compute, not parameters. The encoder's
// record holds the layers as they run; the decoder, upsampling back to the full length without cross-
// attention, is recorded as a second encoder-side stack.
void funnel_body(ModelTemplate& t, const std::string& prefix, const FunnelDims& f, bool decoder) {
  blocks::embedding(t, prefix + "embeddings.word_embeddings.weight", f.vocab, f.hidden);
  blocks::norm(t, prefix + "embeddings.layer_norm", f.hidden, true);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.blocks", f.hidden);
  for (size_t b = 0; b < f.block_sizes.size(); ++b)
    for (uint64_t j = 0; j < f.block_sizes[b]; ++j) {
      funnel_layer(t, encoder.path + "." + std::to_string(b) + "." + std::to_string(j) + ".", f);
      for (uint64_t r = 0; r < f.block_repeats[b]; ++r) encoder.layers.push_back(attention_dense_layer());
    }
  if (!decoder) return;
  StackSpec& up = t.arch.add_stack(StackRole::Encoder, prefix + "decoder.layers", f.hidden);
  for (uint64_t j = 0; j < f.decoder_layers; ++j) {
    funnel_layer(t, up.path + "." + std::to_string(j) + ".", f);
    up.layers.push_back(attention_dense_layer());
  }
}

void build_funnel(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  t.arch.position = PositionKind::Relative;
  const std::string cls = architecture_of(cfg, "FunnelModel");
  const std::string task =
      supported_task(cfg, cls, "Funnel",
                     {"BaseModel", "Model", "ForPreTraining", "ForMaskedLM", "ForSequenceClassification",
                      "ForMultipleChoice", "ForTokenClassification", "ForQuestionAnswering"});
  const FunnelDims f = read_funnel(cfg);
  TextEncoderDims d;
  d.vocab = f.vocab;
  d.layers = f.layers();
  d.layer.hidden = f.hidden;
  d.layer.heads = f.heads;
  d.layer.ffn = f.inner;
  fill_encoder_record(t, cls, d);
  t.arch.head_dim = f.head_dim;
  const uint64_t h = f.hidden;
  // Sequence-level heads sit on FunnelBaseModel (no decoder: a full checkpoint's decoder goes unused).
  const bool sequence_level = task == "ForSequenceClassification" || task == "ForMultipleChoice";
  const bool base_class = task == "BaseModel" || task == "Model";
  funnel_body(t, base_class ? "" : "funnel.", f, task != "BaseModel" && !sequence_level);
  if (task == "ForPreTraining") {  // ELECTRA's discriminator: is each token replaced?
    blocks::linear(t, "discriminator_predictions.dense", h, h, true);
    blocks::linear(t, "discriminator_predictions.dense_prediction", h, 1, true);
  } else if (task == "ForMaskedLM") {
    tied_or_own(t, "lm_head.weight", "funnel.embeddings.word_embeddings.weight", read_tie(cfg, t));
    t.add("lm_head.bias", {f.vocab});
  } else if (sequence_level) {
    blocks::linear(t, "classifier.linear_hidden", h, h, true);
    blocks::linear(t, "classifier.linear_out", h, task == "ForMultipleChoice" ? 1 : num_labels(cfg), true);
  } else {
    linear_task_head(t, task, h, num_labels(cfg));
  }
}

constexpr std::array kCompactEncoderFamilies{
    FamilyBuilder{"mobilebert", build_mobilebert},
    FamilyBuilder{"convbert", build_convbert},
    // YituTech's 2021 configs (conv-bert-small's revisions) spell it so; transformers' classes load them.
    FamilyBuilder{"conv_bert", build_convbert},
    FamilyBuilder{"squeezebert", build_squeezebert},
    FamilyBuilder{"funnel", build_funnel},
};

}  // namespace

std::span<const FamilyBuilder> compact_encoders() {
  return kCompactEncoderFamilies;
}

}  // namespace ma::families
