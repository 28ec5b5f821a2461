// DeBERTa and DeBERTa-v2 (v3 checkpoints are model_type "deberta-v2"): BERT's post-LayerNorm encoder with
// disentangled attention, content and relative position attending to each other through a shared table of
// relative-position embeddings. Several fields that change shapes are not DebertaV2Config fields at all: the
// modeling code reads them from config.json with defaults of its own (embedding_size, position_buckets,
// share_att_key, norm_rel_ebd, conv_kernel_size, attention_head_size). SEW-D reuses v2's encoder
// (deberta_encoder.h) with its config class's defaults for them.
#include <algorithm>
#include <string_view>
#include <vector>

#include "model/families/deberta_encoder.h"
#include "model/families/encoders_bert_relatives.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

struct Deberta {
  bool v2 = false;
  TextEncoderDims dims;
  uint64_t attention = 0;         // heads x attention_head_size: the width of q, k and v
  bool relative = false;          // relative_attention
  bool c2p = false, p2c = false;  // pos_att_type: content-to-position, position-to-content
  bool position_biased_input = true;
  bool share_att_key = false;     // v2: positions projected by the content's own key / query
  int64_t position_buckets = -1;  // v2: log-bucketed relative positions when > 0
  bool relative_norm = false;     // v2: norm_rel_ebd lists layer_norm
};

// DebertaConfig's sizes (deberta-base's); v2's are DebertaEncoderDefaults' own.
constexpr DebertaEncoderDefaults kDebertaV1Defaults{.layers = 12, .hidden = 768, .heads = 12, .ffn = 3072};

// A '|'-joined list ("p2c|c2p", "layer_norm|none"), each entry trimmed and lower-cased as the config does.
std::vector<std::string> bar_list(std::string_view rest) {
  std::vector<std::string> out;
  while (true) {
    const size_t bar = rest.find('|');
    std::string_view item = rest.substr(0, bar);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    std::string lower(item);
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    out.push_back(std::move(lower));
    if (bar == std::string_view::npos) return out;
    rest.remove_prefix(bar + 1);
  }
}

// pos_att_type: a list of kinds, or one '|'-joined string of them; `dflt` when config.json omits it.
std::vector<std::string> position_attention_kinds(const ModelConfig& cfg,
                                                  std::span<const std::string_view> dflt) {
  const json::Value* v = cfg.raw("pos_att_type");
  if (!v) return {dflt.begin(), dflt.end()};
  if (v->is_null()) return {};
  if (v->is_array()) return cfg.strings("pos_att_type");
  if (!v->is_string()) cfg.fail("pos_att_type", "must be a list of strings or a '|'-joined string");
  return bar_list(v->as_string());
}

// An integer field that may be negative (-1: "not set"), within the configs' cap when positive.
int64_t signed_or(const ModelConfig& cfg, std::string_view key, int64_t dflt) {
  const json::Value* v = cfg.raw(key);
  if (!v || v->is_null()) return dflt;
  const std::optional<int64_t> i = v->as_int();
  if (!i || !v->is_integer_literal()) cfg.fail(key, "must be an integer");
  if (*i > static_cast<int64_t>(ModelConfig::kMaxValue))
    cfg.fail(key, "must be at most " + std::to_string(ModelConfig::kMaxValue));
  return *i;
}

bool has_kind(const std::vector<std::string>& kinds, std::string_view k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

Deberta read_deberta(const ModelConfig& cfg, bool v2, const DebertaEncoderDefaults& dflt) {
  Deberta m;
  m.v2 = v2;
  TextEncoderDims& d = m.dims;
  d.vocab = cfg.dim_or("vocab_size", v2 ? 128100 : 50265);
  d.max_positions = cfg.dim_or("max_position_embeddings", 512);
  d.type_vocab = cfg.count_or("type_vocab_size", 0);
  d.layers = cfg.layers_or("num_hidden_layers", dflt.layers, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", dflt.hidden);
  d.layer.heads = cfg.dim_or("num_attention_heads", dflt.heads);
  d.layer.ffn = cfg.dim_or("intermediate_size", dflt.ffn);
  d.embedding = cfg.dim_or("embedding_size", d.layer.hidden);
  // v2 reads attention_head_size (default hidden / heads); v1 requires the heads to divide the hidden size.
  const uint64_t head = v2 && cfg.has("attention_head_size")
                            ? cfg.dim("attention_head_size")
                            : split_heads(cfg, "num_attention_heads", d.layer.hidden, d.layer.heads);
  m.attention = d.layer.heads * head;
  m.relative = cfg.flag_or("relative_attention", dflt.relative_attention);
  const std::vector<std::string> kinds = position_attention_kinds(cfg, dflt.pos_att_type);
  m.c2p = has_kind(kinds, "c2p");
  m.p2c = has_kind(kinds, "p2c");
  m.position_biased_input = cfg.flag_or("position_biased_input", true);
  if (v2) {  // read by DebertaV2's modules only
    m.share_att_key = cfg.flag_or("share_att_key", dflt.share_att_key);
    m.position_buckets = signed_or(cfg, "position_buckets", dflt.position_buckets);
    m.relative_norm = has_kind(bar_list(cfg.string_or("norm_rel_ebd", dflt.norm_rel_ebd)), "layer_norm");
  }
  return m;
}

// Word embeddings, absolute positions only when position_biased_input, token types only when
// type_vocab_size > 0, a bias-free projection up to the hidden size when embedding_size differs, and a
// LayerNorm over the hidden size.
void deberta_embeddings(ModelTemplate& t, const std::string& p, const Deberta& m) {
  const TextEncoderDims& d = m.dims;
  const uint64_t e = d.embedding_width(), h = d.layer.hidden;
  blocks::embedding(t, p + "word_embeddings.weight", d.vocab, e);
  if (m.position_biased_input) blocks::embedding(t, p + "position_embeddings.weight", d.max_positions, e);
  if (d.type_vocab) blocks::embedding(t, p + "token_type_embeddings.weight", d.type_vocab, e);
  if (e != h) blocks::linear(t, p + "embed_proj", e, h, false);
  blocks::norm(t, p + "LayerNorm", h, true);
}

// The disentangled self-attention of one layer. v2: separate biased query/key/value projections, and,
// unless share_att_key reuses them, projections of the relative positions for each kind of attention to
// them. v1: one bias-free in_proj for q, k and v with separate q and v biases, pos_proj (bias-free) and
// pos_q_proj, and talking-head mixing matrices.
void deberta_self_attention(ModelTemplate& t, const ModelConfig& cfg, const std::string& p,
                            const Deberta& m) {
  const uint64_t h = m.dims.layer.hidden, a = m.attention, heads = m.dims.layer.heads;
  if (m.v2) {
    for (const char* proj : {"query_proj", "key_proj", "value_proj"}) blocks::linear(t, p + proj, h, a, true);
    if (m.relative && !m.share_att_key) {
      if (m.c2p) blocks::linear(t, p + "pos_key_proj", h, a, true);
      if (m.p2c) blocks::linear(t, p + "pos_query_proj", h, a, true);
    }
    return;
  }
  t.add(p + "in_proj.weight", {3 * a, h});
  t.add(p + "q_bias", {a});
  t.add(p + "v_bias", {a});
  if (cfg.flag_or("talking_head", false)) {
    t.add(p + "head_logits_proj.weight", {heads, heads});
    t.add(p + "head_weights_proj.weight", {heads, heads});
  }
  if (m.relative) {
    if (m.c2p) t.add(p + "pos_proj.weight", {a, h});
    if (m.p2c) blocks::linear(t, p + "pos_q_proj", h, a, true);
  }
}

// Layers, then the relative-position table (2 x position_buckets rows when bucketed, else 2 x
// max_relative_positions, which below 1 means max_position_embeddings), v2's LayerNorm over it and its
// convolution beside the first layer, under `path` ("deberta.encoder.").
void deberta_encoder(ModelTemplate& t, const ModelConfig& cfg, const std::string& path, const Deberta& m) {
  const TextEncoderDims& d = m.dims;
  const uint64_t h = d.layer.hidden;
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, path + "layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string p = encoder.path + "." + std::to_string(i) + ".";
    deberta_self_attention(t, cfg, p + "attention.self.", m);
    blocks::linear(t, p + "attention.output.dense", h, h, true);
    blocks::norm(t, p + "attention.output.LayerNorm", h, true);
    blocks::linear(t, p + "intermediate.dense", h, d.layer.ffn, true);
    blocks::linear(t, p + "output.dense", d.layer.ffn, h, true);
    blocks::norm(t, p + "output.LayerNorm", h, true);
    encoder.layers.push_back(attention_dense_layer());
  }
  if (m.relative) {
    const int64_t span = signed_or(cfg, "max_relative_positions", -1);
    const uint64_t relative = span < 1 ? d.max_positions : static_cast<uint64_t>(span);
    const uint64_t rows =
        m.position_buckets > 0 ? 2 * static_cast<uint64_t>(m.position_buckets) : 2 * relative;
    blocks::embedding(t, path + "rel_embeddings.weight", rows, h);
  }
  if (!m.v2) return;
  if (m.relative_norm) blocks::norm(t, path + "LayerNorm", h, true);
  if (const uint64_t kernel = cfg.count_or("conv_kernel_size", 0)) {
    const uint64_t groups = cfg.dim_or("conv_groups", 1);
    if (h % groups) cfg.fail("conv_groups", "must divide the hidden size (" + std::to_string(h) + ")");
    t.add(path + "conv.conv.weight", {h, h / groups, kernel});
    t.add(path + "conv.conv.bias", {h});
    blocks::norm(t, path + "conv.LayerNorm", h, true);
  }
}

void build_deberta_family(const ModelConfig& cfg, ModelTemplate& t, bool v2) {
  t.arch.post_norm = true;
  const std::string family = v2 ? "DebertaV2" : "Deberta";
  const std::string cls = architecture_of(cfg, family + "Model");
  const std::string task =
      supported_task(cfg, cls, family,
                     {"Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                      "ForQuestionAnswering", "ForMultipleChoice"});
  const Deberta m = read_deberta(cfg, v2, v2 ? DebertaEncoderDefaults{} : kDebertaV1Defaults);
  const TextEncoderDims& d = m.dims;
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "deberta.";
  deberta_embeddings(t, prefix + "embeddings.", m);
  deberta_encoder(t, cfg, prefix + "encoder.", m);
  const uint64_t h = d.layer.hidden;
  const std::string word = prefix + "embeddings.word_embeddings.weight";
  const bool legacy = cfg.flag_or("legacy", true);
  if (task == "ForMaskedLM") {
    const bool tied = read_tie(cfg, t);
    if (legacy) {  // BERT's head at the embedding width, what every release config gets
      blocks::linear(t, "cls.predictions.transform.dense", h, d.embedding_width(), true);
      blocks::norm(t, "cls.predictions.transform.LayerNorm", d.embedding_width(), true);
      t.add("cls.predictions.bias", {d.vocab});
      tied_or_own(t, "cls.predictions.decoder.weight", word, tied);
      tied_or_own(t, "cls.predictions.decoder.bias", "cls.predictions.bias", tied);
    } else {  // the original checkpoints' head: logits through the word embedding itself
      blocks::linear(t, "lm_predictions.lm_head.dense", h, h, true);
      blocks::norm(t, "lm_predictions.lm_head.LayerNorm", h, true);
      t.add("lm_predictions.lm_head.bias", {d.vocab});
      if (tied) t.tie("lm_predictions.lm_head.weight", word);
    }
  } else if (task == "ForSequenceClassification" || task == "ForMultipleChoice") {
    const uint64_t pooled = cfg.dim_or("pooler_hidden_size", h);
    blocks::linear(t, "pooler.dense", pooled, pooled, true);  // a ContextPooler beside the model, not in it
    blocks::linear(t, "classifier", h, task == "ForMultipleChoice" ? 1 : num_labels(cfg), true);
  } else if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
  }
  // Checkpoints carry what pre-training kept and transformers does not load: the replaced-token detector,
  // the original MLM head, and the absolute positions of models that do not add them.
  t.known_extras.push_back({"mask_predictions.", "DeBERTa's pre-training discriminator head"});
  if (legacy)
    t.known_extras.push_back(
        {"lm_predictions.", "DeBERTa's original masked-LM head (transformers builds cls.*)"});
  if (!m.position_biased_input)
    t.known_extras.push_back({prefix + "embeddings.position_embeddings.",
                              "absolute positions a position_biased_input=false model never adds"});
}

}  // namespace

void deberta_v2_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& encoder,
                        const DebertaEncoderDefaults& defaults) {
  deberta_encoder(t, cfg, encoder, read_deberta(cfg, true, defaults));
}

void build_deberta(const ModelConfig& cfg, ModelTemplate& t) {
  build_deberta_family(cfg, t, false);
}
void build_deberta_v2(const ModelConfig& cfg, ModelTemplate& t) {
  build_deberta_family(cfg, t, true);
}

}  // namespace ma::families
