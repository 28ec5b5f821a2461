// Encoders whose modeling files are BERT's with one twist each: bert-generation (no token types and no
// pooler; an encoder, or a causal decoder with an output bias), RemBERT (narrow input embeddings, a wide
// output embedding it never ties), LayoutLM (position tables for the words' boxes on the page), BigBird
// (block-sparse attention over BERT's modules), Longformer (global query, key and value beside the windowed
// ones), I-BERT (RoBERTa built of integer-only modules that keep persistent buffers), TAPAS (seven token-type
// tables for a table's structure) and RoCBert (pronunciation and glyph-shape tables beside the word's). The
// templates list what transformers' classes put in state_dict, in its order.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// ---- What the eight share ----

// The class config.json names, its task (the class less the family's prefix) and the base model's prefix
// inside it ("" in the base model's own class).
struct TaskClass {
  std::string cls, task, prefix;
};
TaskClass task_class(const ModelConfig& cfg, std::string cls, std::string_view family, std::string_view base,
                     std::initializer_list<std::string_view> tasks, std::string_view base_task = "Model") {
  TaskClass k;
  k.task = supported_task(cfg, cls, family, tasks);
  k.prefix = k.task == base_task ? "" : std::string(base) + ".";
  k.cls = std::move(cls);
  return k;
}

bool task_in(const std::string& task, std::initializer_list<std::string_view> tasks) {
  return std::find(tasks.begin(), tasks.end(), task) != tasks.end();
}

// The record every one of them starts from: BERT's post-LayerNorm encoder of `d`.
void start_record(ModelTemplate& t, const std::string& cls, const TextEncoderDims& d) {
  t.arch.post_norm = true;
  fill_encoder_record(t, cls, d);
}

// is_decoder with add_cross_attention gives every layer a cross-attention block after its self-attention (as
// BERT's does, for EncoderDecoderModel); add_cross_attention alone makes the layer raise.
bool reads_cross_attention(const ModelConfig& cfg) {
  const bool cross = cfg.flag_or("add_cross_attention", false);
  if (cross && !cfg.flag_or("is_decoder", false))
    cfg.fail("add_cross_attention",
             "needs is_decoder: transformers' layers refuse cross-attention otherwise");
  return cross;
}

// BERT's post-LayerNorm layers under `prefix`encoder.layer, recorded as the encoder stack.
void bert_stack(ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d, bool cross) {
  LayerNames n = bert_layer_names();
  if (cross) {
    n.cross_q = "crossattention.self.query";
    n.cross_k = "crossattention.self.key";
    n.cross_v = "crossattention.self.value";
    n.cross_o = "crossattention.output.dense";
    n.cross_norm = "crossattention.output.LayerNorm";
  }
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", d.layer.hidden);
  for (uint64_t i = 0; i < d.layers; ++i) {
    transformer_layer(t, s.path + "." + std::to_string(i), n, d.layer);
    LayerSpec l = attention_dense_layer();
    if (cross) l.cross_attention = l.attention;
    s.layers.push_back(l);
  }
}

// A masked- or causal-LM head whose output bias the head module registers itself, so state_dict lists it
// before the head's children: `head`.bias, the transform (`dense` and `norm` after the head's name; none
// when empty) and the decoder, whose weight is the word embedding and whose bias is that output bias when
// tied.
struct WordHead {
  std::string_view head, dense, norm;
};
void word_predictions(ModelTemplate& t, const WordHead& n, const std::string& word, const TextEncoderDims& d,
                      bool tied) {
  const uint64_t h = d.layer.hidden;
  const std::string head(n.head);
  t.add(head + ".bias", {d.vocab});
  if (!n.dense.empty()) {
    blocks::linear(t, head + std::string(n.dense), h, h, true);
    blocks::norm(t, head + std::string(n.norm), h, true);
  }
  tied_or_own(t, head + ".decoder.weight", word, tied);
  tied_or_own(t, head + ".decoder.bias", head + ".bias", tied);
}
constexpr WordHead kBertLmHead{"cls.predictions", ".transform.dense", ".transform.LayerNorm"};
constexpr WordHead kRobertaLmHead{"lm_head", ".dense", ".layer_norm"};

std::string word_table(const TaskClass& k) {
  return k.prefix + "embeddings.word_embeddings.weight";
}

// The classification heads: one linear over the pooled or first token (a RoBERTa-style two-layer one when
// `two_layer`), one per token, one score per choice, span logits (num_labels of them: these classes do not
// force two).
void classifier_head(const ModelConfig& cfg, ModelTemplate& t, const std::string& task, uint64_t h,
                     bool two_layer) {
  if (task == "ForSequenceClassification" && two_layer) {
    blocks::linear(t, "classifier.dense", h, h, true);
    blocks::linear(t, "classifier.out_proj", h, num_labels(cfg), true);
  } else if (task == "ForSequenceClassification" || task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (task == "ForMultipleChoice") {
    blocks::linear(t, "classifier", h, 1, true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
  }
}

void pooler_dense(ModelTemplate& t, const TaskClass& k, uint64_t h) {
  blocks::linear(t, k.prefix + "pooler.dense", h, h, true);
}

// ---- bert-generation: BERT without token types or pooler ----

// BertGenerationEncoder is the base model; BertGenerationDecoder puts it under bert. with an lm_head that is
// only the tied decoder and its output bias (no transform). google/bert_for_seq_generation_L-24_bbc_encoder's
// sizes are the class defaults.
void build_bert_generation(const ModelConfig& cfg, ModelTemplate& t) {
  const TaskClass k = task_class(cfg, architecture_of(cfg, "BertGenerationEncoder"), "BertGeneration", "bert",
                                 {"Encoder", "Decoder"}, "Encoder");
  const TextEncoderDims d = read_bert_dims(
      cfg, {.vocab = 50358, .type_vocab = 0, .layers = 24, .hidden = 1024, .heads = 16, .ffn = 4096});
  start_record(t, k.cls, d);
  text_embeddings(t, k.prefix + "embeddings.", d);
  bert_stack(t, k.prefix, d, reads_cross_attention(cfg));
  if (k.task == "Decoder") word_predictions(t, {"lm_head", "", ""}, word_table(k), d, read_tie(cfg, t));
}

// ---- RemBERT: embeddings narrower than the layers, a wider untied output embedding ----

// The embeddings are input_embedding_size (E) wide and encoder.embedding_hidden_mapping_in projects them to
// the hidden size (always built, E == H too). The LM head projects to output_embedding_size (O) and decodes
// from there with its own V x O table: the class declares no tied weights, so tie_word_embeddings changes
// nothing (the output embedding is what RemBERT discards for fine-tuning).
void build_rembert(const ModelConfig& cfg, ModelTemplate& t) {
  const TaskClass k = task_class(cfg, architecture_of(cfg, "RemBertModel"), "RemBert", "rembert",
                                 {"Model", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification",
                                  "ForMultipleChoice", "ForTokenClassification", "ForQuestionAnswering"});
  TextEncoderDims d =
      read_bert_dims(cfg, {.vocab = 250300, .layers = 32, .hidden = 1152, .heads = 18, .ffn = 4608});
  d.embedding = cfg.dim_or("input_embedding_size", 256);  // the Hub config's embedding_size is not read
  const uint64_t out = cfg.dim_or("output_embedding_size", 1664), h = d.layer.hidden;
  start_record(t, k.cls, d);
  t.arch.tie_word_embeddings = false;
  text_embeddings(t, k.prefix + "embeddings.", d);
  blocks::linear(t, k.prefix + "encoder.embedding_hidden_mapping_in", d.embedding, h, true);
  bert_stack(t, k.prefix, d, reads_cross_attention(cfg));
  if (task_in(k.task, {"Model", "ForSequenceClassification", "ForMultipleChoice"})) pooler_dense(t, k, h);
  if (task_in(k.task, {"ForMaskedLM", "ForCausalLM"})) {
    blocks::linear(t, "cls.predictions.dense", h, out, true);
    blocks::linear(t, "cls.predictions.decoder", out, d.vocab, true);
    blocks::norm(t, "cls.predictions.LayerNorm", out, true);
  } else {
    classifier_head(cfg, t, k.task, h, false);
  }
}

// ---- LayoutLM (v1): BERT plus the words' bounding boxes ----

// Four tables of max_2d_position_embeddings rows (the boxes' x, y, height and width) between the position and
// the token-type tables. LayoutLMModel always builds its pooler, so every head class keeps it.
void build_layoutlm(const ModelConfig& cfg, ModelTemplate& t) {
  const TaskClass k = task_class(cfg, architecture_of(cfg, "LayoutLMModel"), "LayoutLM", "layoutlm",
                                 {"Model", "ForMaskedLM", "ForSequenceClassification",
                                  "ForTokenClassification", "ForQuestionAnswering"});
  const TextEncoderDims d = read_bert_dims(cfg, {});
  const uint64_t boxes = cfg.dim_or("max_2d_position_embeddings", 1024), h = d.layer.hidden;
  start_record(t, k.cls, d);
  const std::string e = k.prefix + "embeddings.";
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  for (const char* side : {"x", "y", "h", "w"})
    blocks::embedding(t, e + side + "_position_embeddings.weight", boxes, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
  bert_stack(t, k.prefix, d, false);  // LayoutLM's layers have no cross-attention
  pooler_dense(t, k, h);
  if (k.task == "ForMaskedLM")
    word_predictions(t, kBertLmHead, word_table(k), d, read_tie(cfg, t));
  else
    classifier_head(cfg, t, k.task, h, false);
}

// ---- BigBird: BERT's modules under block-sparse attention ----

// The sparse pattern (attention_type, block_size, num_random_blocks) changes no weight; use_bias=false drops
// query, key and value biases. The pooler is a bare Linear (bert.pooler, no .dense) that every class but
// the QA one builds; that one forces two labels and puts a feed-forward block before its qa_outputs. The
// record shows full attention: it has no category for block-sparse attention.
void build_big_bird(const ModelConfig& cfg, ModelTemplate& t) {
  const TaskClass k =
      task_class(cfg, architecture_of(cfg, "BigBirdModel"), "BigBird", "bert",
                 {"Model", "ForPreTraining", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification",
                  "ForMultipleChoice", "ForTokenClassification", "ForQuestionAnswering"});
  TextEncoderDims d = read_bert_dims(cfg, {.vocab = 50358, .positions = 4096});
  d.layer.qkv_bias = cfg.flag_or("use_bias", true);
  const std::string attention = cfg.string_or("attention_type", "block_sparse");
  if (attention != "block_sparse" && attention != "original_full")
    cfg.fail("attention_type", "must be block_sparse or original_full, the two BigBird attentions");
  const uint64_t h = d.layer.hidden;
  start_record(t, k.cls, d);
  text_embeddings(t, k.prefix + "embeddings.", d);
  bert_stack(t, k.prefix, d, reads_cross_attention(cfg));
  if (k.task != "ForQuestionAnswering") blocks::linear(t, k.prefix + "pooler", h, h, true);
  if (task_in(k.task, {"ForPreTraining", "ForMaskedLM", "ForCausalLM"}))
    word_predictions(t, kBertLmHead, word_table(k), d, read_tie(cfg, t));
  if (k.task == "ForPreTraining") {
    blocks::linear(t, "cls.seq_relationship", h, 2, true);
  } else if (k.task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_classifier.intermediate.dense", h, d.layer.ffn, true);
    blocks::linear(t, "qa_classifier.output.dense", d.layer.ffn, h, true);
    blocks::norm(t, "qa_classifier.output.LayerNorm", h, true);
    blocks::linear(t, "qa_classifier.qa_outputs", h, 2, true);
  } else {
    classifier_head(cfg, t, k.task, h, true);
  }
}

// The tail of RoBERTa's classes that Longformer and I-BERT keep: the pooler in the base model and the
// multiple-choice class (the others' checkpoints, converted from RoBERTa's, still hold it: a known extra),
// then RoBERTa's masked-LM head or its classifiers.
void roberta_heads(const ModelConfig& cfg, ModelTemplate& t, const TaskClass& k, const TextEncoderDims& d) {
  if (task_in(k.task, {"Model", "ForMultipleChoice"}))
    pooler_dense(t, k, d.layer.hidden);
  else
    t.known_extras.push_back(
        {k.prefix + "pooler.", "RoBERTa's pooler, kept by checkpoints converted from it"});
  if (k.task == "ForMaskedLM")
    word_predictions(t, kRobertaLmHead, word_table(k), d, read_tie(cfg, t));
  else
    classifier_head(cfg, t, k.task, d.layer.hidden, true);
}

// ---- Longformer: RoBERTa with windowed attention and global projections ----

// attention_window: one even width for every layer, or a list of one per layer (LongformerModel asserts
// both).
std::vector<uint64_t> longformer_windows(const ModelConfig& cfg, uint64_t layers) {
  std::vector<uint64_t> windows;
  const json::Value* v = cfg.raw("attention_window");
  if (v && v->is_array()) {
    if (v->items().size() != layers)
      cfg.fail("attention_window", "must list one window per layer (" + std::to_string(layers) + ")");
    for (int64_t w : cfg.ints("attention_window")) {
      if (w < 1 || static_cast<uint64_t>(w) > ModelConfig::kMaxValue)
        cfg.fail("attention_window",
                 "must hold positive widths up to " + std::to_string(ModelConfig::kMaxValue));
      windows.push_back(static_cast<uint64_t>(w));
    }
  } else {
    windows.assign(layers, cfg.dim_or("attention_window", 512));
  }
  for (uint64_t w : windows)
    if (w % 2) cfg.fail("attention_window", "must be even: each token sees half of it on either side");
  return windows;
}

// Each layer is BERT's with query_global, key_global and value_global beside query, key and value: the tokens
// given global attention attend, and are attended, through them.
void longformer_layer(ModelTemplate& t, const std::string& p, const LayerDims& d) {
  const size_t first = t.tensors.size();
  transformer_layer(t, p, bert_layer_names(), d);
  longformer_global_projections(t, first, p + ".attention.self.", d.hidden);
}

// The embeddings are RoBERTa's, in its order (the position table last); none stores position ids. Only the
// base model and the multiple-choice class build the pooler; the allenai checkpoints, converted from
// RoBERTa's, still store it beside the masked-LM head (their file sizes say so).
void build_longformer(const ModelConfig& cfg, ModelTemplate& t) {
  const TaskClass k = task_class(cfg, architecture_of(cfg, "LongformerModel"), "Longformer", "longformer",
                                 {"Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice",
                                  "ForTokenClassification", "ForQuestionAnswering"});
  const TextEncoderDims d = read_bert_dims(cfg, {});
  const std::vector<uint64_t> windows = longformer_windows(cfg, d.layers);
  const uint64_t h = d.layer.hidden;
  start_record(t, k.cls, d);
  const std::string e = k.prefix + "embeddings.";
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, k.prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    longformer_layer(t, s.path + "." + std::to_string(i), d.layer);
    LayerSpec l = attention_dense_layer();
    set_window(l.attention, windows[i]);
    s.layers.push_back(l);
  }
  roberta_heads(cfg, t, k, d);
}

// ---- I-BERT: RoBERTa of integer-only modules ----

// quant_modules.py's modules keep nn.Linear's, nn.Embedding's and nn.LayerNorm's parameters under the same
// names (so I-BERT counts RoBERTa's parameters) and add persistent float32 buffers, which save_pretrained
// writes: their own parameters first, then their buffers, then their children, as state_dict lists them.
void persistent_buffer(ModelTemplate& t, const std::string& name, Shape shape) {
  t.add(name, std::move(shape)).kind = TensorKind::Buffer;
}
// QuantAct: the running range of an activation and its scale.
void quant_act(ModelTemplate& t, const std::string& p) {
  for (const char* leaf : {".x_min", ".x_max", ".act_scaling_factor"}) persistent_buffer(t, p + leaf, {1});
}
void quant_linear(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out) {
  blocks::linear(t, p, in, out, true);
  persistent_buffer(t, p + ".weight_integer", {out, in});
  persistent_buffer(t, p + ".fc_scaling_factor", {out});
  persistent_buffer(t, p + ".bias_integer", {out});
}
// QuantEmbedding is an nn.Module, not an nn.Embedding: transformers' exclude_embeddings keeps its weight, so
// it carries no embedding flag.
void quant_embedding(ModelTemplate& t, const std::string& p, uint64_t rows, uint64_t width) {
  t.add(p + ".weight", {rows, width});
  persistent_buffer(t, p + ".weight_scaling_factor", {1});
  persistent_buffer(t, p + ".weight_integer", {rows, width});
}
void int_layer_norm(ModelTemplate& t, const std::string& p, uint64_t width) {
  blocks::norm(t, p, width, true);
  persistent_buffer(t, p + ".shift", {1});
  quant_act(t, p + ".activation");
}

// One layer: 16 parameters (RoBERTa's) and 62 buffers. IntSoftmax and IntGELU hold only a QuantAct or
// nothing.
void ibert_layer(ModelTemplate& t, const std::string& p, const LayerDims& d) {
  const uint64_t h = d.hidden;
  const std::string self = p + ".attention.self.", out = p + ".attention.output.";
  for (const char* proj : {"query", "key", "value"}) quant_linear(t, self + proj, h, h);
  for (const char* act : {"query_activation", "key_activation", "value_activation", "output_activation"})
    quant_act(t, self + act);
  quant_act(t, self + "softmax.act");
  quant_linear(t, out + "dense", h, h);
  quant_act(t, out + "ln_input_act");
  int_layer_norm(t, out + "LayerNorm", h);
  quant_act(t, out + "output_activation");
  quant_linear(t, p + ".intermediate.dense", h, d.ffn);
  quant_act(t, p + ".intermediate.output_activation");
  quant_linear(t, p + ".output.dense", d.ffn, h);
  quant_act(t, p + ".output.ln_input_act");
  int_layer_norm(t, p + ".output.LayerNorm", h);
  quant_act(t, p + ".output.output_activation");
  quant_act(t, p + ".pre_intermediate_act");
  quant_act(t, p + ".pre_output_act");
}

// quant_mode and force_dequant change what runs, not what is built. The pooler and the heads are RoBERTa's
// plain modules. kssteven's checkpoints are roberta-base's and -large's weights renamed: no buffers (loading
// initialises them), and the pooler that the masked-LM class does not build.
void build_ibert(const ModelConfig& cfg, ModelTemplate& t) {
  std::string cls = architecture_of(cfg, "IBertModel");
  if (cls == "IBertRobertaForMaskedLM") cls = "IBertForMaskedLM";  // kssteven's configs of February 2021
  const TaskClass k = task_class(cfg, cls, "IBert", "ibert",
                                 {"Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice",
                                  "ForTokenClassification", "ForQuestionAnswering"});
  const TextEncoderDims d = read_bert_dims(cfg, {});
  if (cfg.string_or("hidden_act", "gelu") != "gelu")
    cfg.fail("hidden_act", "must be gelu: IBertIntermediate raises for any other, having only IntGELU");
  const uint64_t h = d.layer.hidden;
  start_record(t, k.cls, d);
  const std::string e = k.prefix + "embeddings.";
  quant_embedding(t, e + "word_embeddings", d.vocab, h);
  quant_embedding(t, e + "token_type_embeddings", d.type_vocab, h);
  quant_embedding(t, e + "position_embeddings", d.max_positions, h);
  quant_act(t, e + "embeddings_act1");
  quant_act(t, e + "embeddings_act2");
  int_layer_norm(t, e + "LayerNorm", h);
  quant_act(t, e + "output_activation");
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, k.prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    ibert_layer(t, s.path + "." + std::to_string(i), d.layer);
    s.layers.push_back(attention_dense_layer());
  }
  // The masked-LM head ties to the word embedding's weight alone (transformers' key ends in $), not to its
  // integer buffers.
  roberta_heads(cfg, t, k, d);
}

// ---- TAPAS: BERT over flattened tables ----

// type_vocab_sizes: one token-type table per feature of a token's cell (segment, column, row, previous
// answer, column rank, inverse rank, numeric relation). A longer list than kMaxTokenTypeTables is no TAPAS
// config.
constexpr size_t kMaxTokenTypeTables = 64;
std::vector<uint64_t> tapas_token_types(const ModelConfig& cfg) {
  if (!cfg.has("type_vocab_sizes")) return {3, 256, 256, 2, 256, 256, 10};
  const json::Value* v = cfg.raw("type_vocab_sizes");
  if (!v->is_array() || v->items().empty() || v->items().size() > kMaxTokenTypeTables)
    cfg.fail("type_vocab_sizes",
             "must list between 1 and " + std::to_string(kMaxTokenTypeTables) + " token-type table sizes");
  std::vector<uint64_t> sizes;
  for (int64_t n : cfg.ints("type_vocab_sizes")) {
    if (n < 1 || static_cast<uint64_t>(n) > ModelConfig::kMaxValue)
      cfg.fail("type_vocab_sizes", "must hold sizes from 1 to " + std::to_string(ModelConfig::kMaxValue));
    sizes.push_back(static_cast<uint64_t>(n));
  }
  return sizes;
}

// TapasForQuestionAnswering selects cells: its own parameters (registered on the head itself, so first in
// state_dict) score tokens and columns, the scalar biases shaped (); with num_aggregation_labels, an
// aggregation classifier over the pooled output follows the model. No buffers, no position ids, ever.
void build_tapas(const ModelConfig& cfg, ModelTemplate& t) {
  const TaskClass k =
      task_class(cfg, architecture_of(cfg, "TapasModel"), "Tapas", "tapas",
                 {"Model", "ForMaskedLM", "ForSequenceClassification", "ForQuestionAnswering"});
  const TextEncoderDims d = read_bert_dims(cfg, {.positions = 1024, .type_vocab = 0});
  const std::vector<uint64_t> token_types = tapas_token_types(cfg);
  const uint64_t aggregations = cfg.count_or("num_aggregation_labels", 0), h = d.layer.hidden;
  start_record(t, k.cls, d);
  if (k.task == "ForQuestionAnswering") {
    t.add("output_weights", {h});
    t.add("column_output_weights", {h});
    t.add("output_bias", {});
    t.add("column_output_bias", {});
  }
  const std::string e = k.prefix + "embeddings.";
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  for (size_t i = 0; i < token_types.size(); ++i)
    blocks::embedding(t, e + "token_type_embeddings_" + std::to_string(i) + ".weight", token_types[i], h);
  blocks::norm(t, e + "LayerNorm", h, true);
  bert_stack(t, k.prefix, d, reads_cross_attention(cfg));
  if (k.task == "ForMaskedLM") {
    word_predictions(t, kBertLmHead, word_table(k), d, read_tie(cfg, t));
    return;
  }
  pooler_dense(t, k, h);  // every other class has it
  if (k.task == "ForSequenceClassification")
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  else if (k.task == "ForQuestionAnswering" && aggregations)
    blocks::linear(t, "aggregation_classifier", h, aggregations, true);
}

// ---- RoCBert: BERT with pronunciation and glyph-shape embeddings ----

// Both extra tables are built whatever enable_pronunciation and enable_shape say; the flags only narrow
// map_inputs_layer, which (with concat_input) projects the concatenated embeddings back to the hidden size.
// RoCBertForPreTraining keeps the pooler and has no next-sentence head: it pre-trains with masked LM and a
// contrastive loss.
void build_roc_bert(const ModelConfig& cfg, ModelTemplate& t) {
  const TaskClass k =
      task_class(cfg, architecture_of(cfg, "RoCBertModel"), "RoCBert", "roc_bert",
                 {"Model", "ForPreTraining", "ForMaskedLM", "ForCausalLM", "ForSequenceClassification",
                  "ForMultipleChoice", "ForTokenClassification", "ForQuestionAnswering"});
  const TextEncoderDims d = read_bert_dims(cfg, {});
  const uint64_t h = d.layer.hidden, sound = cfg.dim_or("pronunciation_embed_dim", 768),
                 shape = cfg.dim_or("shape_embed_dim", 512);
  const uint64_t sounds = cfg.dim_or("pronunciation_vocab_size", 910),
                 shapes = cfg.dim_or("shape_vocab_size", 24858);
  start_record(t, k.cls, d);
  const std::string e = k.prefix + "embeddings.";
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "pronunciation_embed.weight", sounds, sound);
  blocks::embedding(t, e + "shape_embed.weight", shapes, shape);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  if (cfg.flag_or("concat_input", true)) {
    const uint64_t concatenated = h + (cfg.flag_or("enable_pronunciation", true) ? sound : 0) +
                                  (cfg.flag_or("enable_shape", true) ? shape : 0);
    blocks::linear(t, e + "map_inputs_layer", concatenated, h, true);
  }
  blocks::norm(t, e + "LayerNorm", h, true);
  bert_stack(t, k.prefix, d, reads_cross_attention(cfg));
  if (task_in(k.task, {"Model", "ForPreTraining", "ForSequenceClassification", "ForMultipleChoice"}))
    pooler_dense(t, k, h);
  if (task_in(k.task, {"ForPreTraining", "ForMaskedLM", "ForCausalLM"}))
    word_predictions(t, kBertLmHead, word_table(k), d, read_tie(cfg, t));
  else
    classifier_head(cfg, t, k.task, h, false);
}

constexpr std::array kBertShapedFamilies{
    FamilyBuilder{"bert-generation", build_bert_generation},
    FamilyBuilder{"rembert", build_rembert},
    FamilyBuilder{"layoutlm", build_layoutlm},
    FamilyBuilder{"big_bird", build_big_bird},
    FamilyBuilder{"longformer", build_longformer},
    FamilyBuilder{"ibert", build_ibert},
    FamilyBuilder{"tapas", build_tapas},
    FamilyBuilder{"roc_bert", build_roc_bert},
};

}  // namespace

std::span<const FamilyBuilder> bert_shaped() {
  return kBertShapedFamilies;
}

}  // namespace ma::families
