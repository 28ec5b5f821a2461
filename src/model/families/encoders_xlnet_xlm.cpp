// XLNet, XLM and FlauBERT: the 2019 pre-trained encoders that are not BERT's code. XLNet runs two-stream
// relative attention whose projections are raw [d_model, n_head, d_head] tensors, with per-layer position and
// segment biases. XLM keeps its layers as four parallel lists (attentions, layer_norm1, ffns, layer_norm2)
// with a learned position table and optional language embeddings; FlauBERT is XLM's code under its own
// classes (pre_norm moves the same norms before the blocks).
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "model/families/encoders_classic.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// The SQuAD 2.0 head of XLNet's and XLM's ForQuestionAnswering (PoolerStartLogits, PoolerEndLogits,
// PoolerAnswerClass): start logits, end logits read beside the start state (2 x hidden), and the
// answerability classifier, whose last Linear has no bias.
void squad_head(ModelTemplate& t, const std::string& p, uint64_t h) {
  blocks::linear(t, p + "start_logits.dense", h, 1, true);
  blocks::linear(t, p + "end_logits.dense_0", 2 * h, h, true);
  blocks::norm(t, p + "end_logits.LayerNorm", h, true);
  blocks::linear(t, p + "end_logits.dense_1", h, 1, true);
  blocks::linear(t, p + "answer_class.dense_0", 2 * h, h, true);
  blocks::linear(t, p + "answer_class.dense_1", h, 1, false);
}

// ---- XLNet ----

// XLNetConfig's defaults are xlnet-large-cased's sizes. 2019 configs say n_token for vocab_size; hidden_size,
// num_attention_heads and num_hidden_layers are aliases of d_model, n_head and n_layer.
TextEncoderDims read_xlnet(const ModelConfig& cfg) {
  TextEncoderDims d;
  d.vocab = cfg.dim_or(classic_encoders::aliased(cfg, "n_token", "vocab_size"), 32000);
  d.layers = cfg.layers_or(classic_encoders::aliased(cfg, "num_hidden_layers", "n_layer"), 24, 0);
  d.layer.hidden = cfg.dim_or(classic_encoders::aliased(cfg, "hidden_size", "d_model"), 1024);
  const std::string_view heads_key = classic_encoders::aliased(cfg, "num_attention_heads", "n_head");
  d.layer.heads = cfg.dim_or(heads_key, 16);
  d.layer.ffn = cfg.dim_or("d_inner", 4096);
  const uint64_t head_dim = split_heads(cfg, heads_key, d.layer.hidden, d.layer.heads);
  // d_head defaults to d_model / n_head, and the config class accepts no other value.
  if (const uint64_t given = cfg.count_or("d_head", 0); given && given != head_dim)
    cfg.fail("d_head", "must equal d_model / n_head (" + std::to_string(head_dim) + ")");
  return d;
}

// One layer, `p` ending in '.': the relative attention's q, k, v, o and r (position) projections as
// [d_model, n_head, d_head] einsum weights without biases, its content, position and segment biases (untie_r
// or not, every layer has its own), segment embeddings, then the FFN, whose LayerNorm registers first.
void xlnet_layer(ModelTemplate& t, const std::string& p, const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden, n = d.layer.heads, dh = h / n;
  const std::string r = p + "rel_attn.";
  for (const char* w : {"q", "k", "v", "o", "r"}) t.add(r + w, {h, n, dh});
  for (const char* b : {"r_r_bias", "r_s_bias", "r_w_bias"}) t.add(r + b, {n, dh});
  t.add(r + "seg_embed", {2, n, dh});
  blocks::norm(t, r + "layer_norm", h, true);
  blocks::norm(t, p + "ff.layer_norm", h, true);
  blocks::linear(t, p + "ff.layer_1", h, d.layer.ffn, true);
  blocks::linear(t, p + "ff.layer_2", d.layer.ffn, h, true);
}

// No position table (relative sinusoids are computed) and no buffers; mask_emb, the query stream's start for
// two-stream attention, is XLNetModel's own Parameter and so its first tensor.
void build_xlnet(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  t.arch.position = PositionKind::Relative;
  const std::string cls = architecture_of(cfg, "XLNetModel");
  const std::string task =
      supported_task(cfg, cls, "XLNet",
                     {"Model", "LMHeadModel", "ForSequenceClassification", "ForTokenClassification",
                      "ForMultipleChoice", "ForQuestionAnsweringSimple", "ForQuestionAnswering"});
  const TextEncoderDims d = read_xlnet(cfg);
  const uint64_t h = d.layer.hidden;
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "transformer.";
  t.add(prefix + "mask_emb", {1, 1, h});
  blocks::embedding(t, prefix + "word_embedding.weight", d.vocab, h);
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    xlnet_layer(t, encoder.path + "." + std::to_string(i) + ".", d);
    encoder.layers.push_back(attention_dense_layer());
  }
  const classic_encoders::SummaryDefaults summary{.use_proj = true, .proj_to_labels = false};
  if (task == "LMHeadModel") {
    tied_or_own(t, "lm_loss.weight", prefix + "word_embedding.weight", read_tie(cfg, t));
    t.add("lm_loss.bias", {d.vocab});
  } else if (task == "ForSequenceClassification" || task == "ForMultipleChoice") {
    classic_encoders::sequence_summary(cfg, t, "sequence_summary", h, summary);
    blocks::linear(t, "logits_proj", h, task == "ForMultipleChoice" ? 1 : num_labels(cfg), true);
  } else if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (task == "ForQuestionAnsweringSimple") {
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
  } else if (task == "ForQuestionAnswering") {
    squad_head(t, "", h);
  }
}

// ---- XLM and FlauBERT ----

// XLMConfig's defaults are xlm-mlm-en-2048's sizes (FlaubertConfig keeps them). emb_dim, n_heads, n_layers
// and vocab_size are also read as hidden_size, num_attention_heads, num_hidden_layers and (2019) n_words. The
// feed-forward width is fixed at 4 x emb_dim.
TextEncoderDims read_xlm(const ModelConfig& cfg) {
  TextEncoderDims d;
  d.vocab = cfg.dim_or(classic_encoders::aliased(cfg, "n_words", "vocab_size"), 30145);
  d.max_positions = cfg.dim_or("max_position_embeddings", 512);
  d.layers = cfg.layers_or(classic_encoders::aliased(cfg, "num_hidden_layers", "n_layers"), 12, 0);
  d.layer.hidden = cfg.dim_or(classic_encoders::aliased(cfg, "hidden_size", "emb_dim"), 2048);
  const std::string_view heads_key = classic_encoders::aliased(cfg, "num_attention_heads", "n_heads");
  d.layer.heads = cfg.dim_or(heads_key, 16);
  d.layer.ffn = 4 * d.layer.hidden;
  split_heads(cfg, heads_key, d.layer.hidden, d.layer.heads);
  if (!cfg.flag_or("is_encoder", true))
    cfg.fail("is_encoder", "must be true: transformers' XLM classes raise on a decoder-only model");
  return d;
}

// The embeddings, then each of the four parallel ModuleLists in turn (so the state_dict is grouped by kind,
// not by layer). Token types reuse the word table; languages have a table only when there are several and
// use_lang_emb. sinusoidal_embeddings only initialises the position table, which stays a parameter.
void xlm_body(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden, langs = cfg.count_or("n_langs", 1);
  blocks::embedding(t, prefix + "position_embeddings.weight", d.max_positions, h);
  if (langs > 1 && cfg.flag_or("use_lang_emb", true))
    blocks::embedding(t, prefix + "lang_embeddings.weight", langs, h);
  blocks::embedding(t, prefix + "embeddings.weight", d.vocab, h);
  blocks::norm(t, prefix + "layer_norm_emb", h, true);
  StackSpec& layers = t.arch.add_stack(StackRole::Encoder, prefix + "attentions", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    for (const char* proj : {"q_lin", "k_lin", "v_lin", "out_lin"})
      blocks::linear(t, layers.path + "." + std::to_string(i) + "." + proj, h, h, true);
    layers.layers.push_back(attention_dense_layer());
  }
  for (uint64_t i = 0; i < d.layers; ++i)
    blocks::norm(t, prefix + "layer_norm1." + std::to_string(i), h, true);
  for (uint64_t i = 0; i < d.layers; ++i) {
    blocks::linear(t, prefix + "ffns." + std::to_string(i) + ".lin1", h, d.layer.ffn, true);
    blocks::linear(t, prefix + "ffns." + std::to_string(i) + ".lin2", d.layer.ffn, h, true);
  }
  for (uint64_t i = 0; i < d.layers; ++i)
    blocks::norm(t, prefix + "layer_norm2." + std::to_string(i), h, true);
}

// Python's float floor division `a // b` (CPython's float_floor_div), which the adaptive softmax sizes its
// clusters with: floor(a / b) but for quotients a division rounds up to a whole number.
double python_floor_div(double a, double b) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  double floor_div = std::floor(div);
  if (div - floor_div > 0.5) floor_div += 1.0;
  return floor_div;
}

// The adaptive softmax's cluster bounds: asm_cutoffs (torch requires them unique, increasing, within
// [1, vocab_size - 1]) and vocab_size after them. XLM's config class defines neither asm field: both are
// required.
std::vector<uint64_t> asm_bounds(const ModelConfig& cfg, uint64_t vocab) {
  for (std::string_view key : {"asm_cutoffs", "asm_div_value"})
    if (!cfg.has(key)) cfg.fail(key, "is required with asm (XLM's config class gives it no default)");
  const json::Value* listed = cfg.raw("asm_cutoffs");
  if (listed->is_array() && listed->items().size() > ModelConfig::kMaxLayers)
    cfg.fail("asm_cutoffs", "lists more than " + std::to_string(ModelConfig::kMaxLayers) + " clusters");
  std::vector<uint64_t> bounds;
  for (int64_t c : cfg.ints("asm_cutoffs")) {
    if (c < 1 || static_cast<uint64_t>(c) >= vocab ||
        (!bounds.empty() && static_cast<uint64_t>(c) <= bounds.back()))
      cfg.fail("asm_cutoffs",
               "must increase strictly, between 1 and vocab_size - 1 (" + std::to_string(vocab - 1) + ")");
    bounds.push_back(static_cast<uint64_t>(c));
  }
  if (bounds.empty()) cfg.fail("asm_cutoffs", "must list at least one cutoff");
  bounds.push_back(vocab);
  return bounds;
}

// asm: torch's AdaptiveLogSoftmaxWithLoss(emb_dim, vocab, asm_cutoffs, asm_div_value, head_bias=True) in
// place of the output projection: a head over the shortlist and one entry per cluster, and per cluster a
// bias-free down projection to emb_dim // div^(i+1) and up to the cluster's tokens. Tied, the word embedding
// is set on it as `weight` (listed first, unused).
void adaptive_softmax(const ModelConfig& cfg, ModelTemplate& t, const std::string& word,
                      const TextEncoderDims& d, bool tied) {
  const uint64_t h = d.layer.hidden;
  const std::vector<uint64_t> bounds = asm_bounds(cfg, d.vocab);
  const double div = cfg.number_or("asm_div_value", 4.0);
  if (!std::isfinite(div) || div <= 0) cfg.fail("asm_div_value", "must be a positive number");
  if (tied) t.tie("pred_layer.proj.weight", word);
  const uint64_t clusters = bounds.size() - 1;
  blocks::linear(t, "pred_layer.proj.head", h, bounds.front() + clusters, true);
  for (uint64_t i = 0; i < clusters; ++i) {
    const double width = python_floor_div(static_cast<double>(h), std::pow(div, static_cast<double>(i + 1)));
    if (!(width >= 0) || width > static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("asm_div_value", "gives cluster " + std::to_string(i) + " an implausible width");
    const uint64_t w = static_cast<uint64_t>(width);
    const std::string tail = "pred_layer.proj.tail." + std::to_string(i);
    blocks::linear(t, tail + ".0", h, w, false);
    blocks::linear(t, tail + ".1", w, bounds[i + 1] - bounds[i], false);
  }
}

// XLM's and FlauBERT's classes differ in their prefix only.
void build_xlm_style(const ModelConfig& cfg, ModelTemplate& t, std::string_view family) {
  t.arch.post_norm = true;
  t.arch.position = PositionKind::Learned;
  const std::string cls = architecture_of(cfg, std::string(family) + "Model");
  const std::string task =
      supported_task(cfg, cls, family,
                     {"Model", "WithLMHeadModel", "ForSequenceClassification", "ForTokenClassification",
                      "ForMultipleChoice", "ForQuestionAnsweringSimple", "ForQuestionAnswering"});
  const TextEncoderDims d = read_xlm(cfg);
  const uint64_t h = d.layer.hidden;
  fill_encoder_record(t, cls, d);
  const std::string prefix = task == "Model" ? "" : "transformer.";
  xlm_body(cfg, t, prefix, d);
  const classic_encoders::SummaryDefaults summary{.use_proj = true, .proj_to_labels = true};
  if (task == "WithLMHeadModel" && cfg.flag_or("asm", false)) {
    adaptive_softmax(cfg, t, prefix + "embeddings.weight", d, read_tie(cfg, t));
  } else if (task == "WithLMHeadModel") {
    tied_or_own(t, "pred_layer.proj.weight", prefix + "embeddings.weight", read_tie(cfg, t));
    t.add("pred_layer.proj.bias", {d.vocab});
  } else if (task == "ForSequenceClassification") {  // the summary's projection is the classifier
    classic_encoders::sequence_summary(cfg, t, "sequence_summary", h, summary);
  } else if (task == "ForMultipleChoice") {
    classic_encoders::sequence_summary(cfg, t, "sequence_summary", h, summary);
    blocks::linear(t, "logits_proj", num_labels(cfg), 1, true);  // reads the summary's num_labels outputs
  } else if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (task == "ForQuestionAnsweringSimple") {
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
  } else if (task == "ForQuestionAnswering") {
    squad_head(t, "qa_outputs.", h);
  }
}

void build_xlm(const ModelConfig& cfg, ModelTemplate& t) {
  build_xlm_style(cfg, t, "XLM");
}

// pre_norm normalises before attention and FFN with the same modules; layerdrop skips layers in training.
void build_flaubert(const ModelConfig& cfg, ModelTemplate& t) {
  build_xlm_style(cfg, t, "Flaubert");
  t.arch.post_norm = !cfg.flag_or("pre_norm", false);
  (void)cfg.number_or("layerdrop", 0.0);  // read to validate: it shapes nothing
}

constexpr std::array kXlnetXlmFamilies{
    FamilyBuilder{"xlnet", build_xlnet},
    FamilyBuilder{"xlm", build_xlm},
    FamilyBuilder{"flaubert", build_flaubert},
};

}  // namespace

std::span<const FamilyBuilder> xlnet_xlm() {
  return kXlnetXlmFamilies;
}

}  // namespace ma::families
