// Encoders that vary BERT or reuse a newer encoder's layout: EuroBERT (a Llama
// layer stack run without a causal mask), ModernBERT-decoder (ModernBERT's
// blocks with separate q/k/v, causal), Jina-Embeddings-v3 (XLM-RoBERTa's tables
// and heads around rotary post-norm layers; its LoRA adapters are PEFT files
// beside the weights), LUKE (RoBERTa plus an entity vocabulary, entity-aware
// queries and an entity prediction head), FNet (a parameter-free Fourier
// transform in place of attention), and the three approximate-attention
// encoders from UW-Madison, Nystromformer (landmarks), YOSO (hashing) and MRA
// (multi-resolution blocks), which keep BERT's modules. The templates list what
// transformers' classes put in state_dict, in its order.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_common.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// ---- What they share ----

// The class config.json names, its task (the class less the family's prefix)
// and the base model's prefix inside it ("" in the base model's own class).
struct VariantClass {
  std::string cls, task, prefix;
};
VariantClass variant_class(const ModelConfig& cfg, std::string_view family, std::string_view base,
                           std::initializer_list<std::string_view> tasks) {
  VariantClass k;
  k.cls = architecture_of(cfg, std::string(family) + "Model");
  k.task = supported_task(cfg, k.cls, family, tasks);
  k.prefix = k.task == "Model" ? "" : std::string(base) + ".";
  return k;
}

bool is_one_of(const std::string& task, std::initializer_list<std::string_view> tasks) {
  for (std::string_view t : tasks)
    if (task == t) return true;
  return false;
}

// Marks `name`, already added as a parameter, as a tied copy of `target`, which
// state_dict lists after it (a head registered before the base model, or a bias
// the head owns but ties to its decoder's).
void tie_to_later(ModelTemplate& t, const std::string& name, const std::string& target) {
  TemplateTensor* copy = nullptr;
  const TemplateTensor* storage = nullptr;
  for (TemplateTensor& x : t.tensors) {
    if (x.name == name) copy = &x;
    if (x.name == target) storage = &x;
  }
  if (!copy || !storage || copy->shape != storage->shape)
    throw Error(ErrorKind::Internal, "", name, "tied to unknown or differently shaped tensor " + target);
  copy->tied_to = target;
  copy->stored = false;
  copy->embedding = false;
}

// A persistent buffer: saved with the weights, not learned. `dtype`: what
// checkpoints store it as when it is not the model's float type (int64 position
// ids, complex64 DFT matrices).
void persistent_buffer(ModelTemplate& t, const std::string& name, Shape shape, DType dtype) {
  TemplateTensor& b = t.add(name, shape);
  b.kind = TensorKind::Buffer;
  b.disk.push_back({.name = name, .shape = std::move(shape), .dtype = dtype});
}

// BERT's post-LayerNorm encoder layers under `prefix`encoder.layer;
// `extra_attention` adds what a family puts in attention.self after query, key
// and value (given the layer's attention.self prefix).
template <typename Extra>
void post_norm_stack(ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d, Extra extra) {
  const uint64_t h = d.layer.hidden;
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string p = s.path + "." + std::to_string(i);
    for (const char* proj : {".attention.self.query", ".attention.self.key", ".attention.self.value"})
      blocks::linear(t, p + proj, h, h, true);
    extra(p + ".attention.self");
    blocks::linear(t, p + ".attention.output.dense", h, h, true);
    blocks::norm(t, p + ".attention.output.LayerNorm", h, true);
    blocks::linear(t, p + ".intermediate.dense", h, d.layer.ffn, true);
    blocks::linear(t, p + ".output.dense", d.layer.ffn, h, true);
    blocks::norm(t, p + ".output.LayerNorm", h, true);
    s.layers.push_back(attention_dense_layer());
  }
}

// BERT's masked-LM head: the output bias the head module owns (first in
// state_dict), the transform (dense, LayerNorm) and the decoder, whose weight
// is the word embedding and whose bias is that output bias when
// tie_word_embeddings holds.
void bert_lm_head(ModelTemplate& t, const std::string& head, const std::string& word,
                  const TextEncoderDims& d, bool tied) {
  const uint64_t h = d.layer.hidden;
  t.add(head + ".bias", {d.vocab});
  blocks::linear(t, head + ".transform.dense", h, h, true);
  blocks::norm(t, head + ".transform.LayerNorm", h, true);
  tied_or_own(t, head + ".decoder.weight", word, tied);
  tied_or_own(t, head + ".decoder.bias", head + ".bias", tied);
}

// The record of a BERT-like post-norm encoder of `d` whose positions come from
// a learned table.
void start_encoder_record(ModelTemplate& t, const std::string& cls, const TextEncoderDims& d) {
  t.arch.post_norm = true;
  t.arch.norm = NormKind::LayerNorm;
  fill_encoder_record(t, cls, d);
}

// ---- Nystromformer, YOSO, MRA: BERT's modules around approximate attention
// ----

// Their embeddings are BERT's with two more position rows (ids start after the
// padding index, as RoBERTa's), no pooler anywhere, RoBERTa's two-layer
// sequence classifier, a multiple-choice head with a pre_classifier and a span
// head that forces two labels. The approximations (landmarks, hashes, block
// resolutions) run on q, k and v without weights of their own, so the record
// shows softmax MHA, which they approximate; a depthwise convolution over
// values (Nystromformer's conv_kernel_size, YOSO's conv_window) is their one
// addition.
struct UwEncoder {
  std::string_view family, base;
  BertDefaults defaults;
  const char* conv_key;       // the key of the value convolution's kernel length;
                              // nullptr: none (MRA)
  uint64_t conv_default;      // 0: no convolution unless config.json sets one
  bool persistent_positions;  // MRA registers position_ids as a persistent buffer
};

void build_uw_encoder(const ModelConfig& cfg, ModelTemplate& t, const UwEncoder& u) {
  const VariantClass k =
      variant_class(cfg, u.family, u.base,
                    {"Model", "ForMaskedLM", "ForSequenceClassification", "ForMultipleChoice",
                     "ForTokenClassification", "ForQuestionAnswering"});
  TextEncoderDims d = read_bert_dims(cfg, u.defaults);
  const uint64_t h = d.layer.hidden, heads = d.layer.heads;
  // The kernel length: the class default when absent, none when null.
  uint64_t conv = 0;
  if (u.conv_key)
    conv = !cfg.raw(u.conv_key) ? u.conv_default : cfg.has(u.conv_key) ? cfg.dim(u.conv_key) : 0;
  start_encoder_record(t, k.cls, d);
  // The position table covers max_position_embeddings + 2 rows; the record
  // keeps the usable length.
  const std::string e = k.prefix + "embeddings.";
  // The embeddings module's own buffer precedes its children's weights in
  // state_dict.
  if (u.persistent_positions) persistent_buffer(t, e + "position_ids", {1, d.max_positions}, DType::I64);
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions + 2, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
  post_norm_stack(t, k.prefix, d, [&](const std::string& self) {
    // A depthwise Conv2d over each head's values along the sequence: weight
    // [heads, 1, kernel, 1].
    if (conv) t.add(self + ".conv.weight", {heads, 1, conv, 1});
  });
  if (k.task == "ForMaskedLM") {
    bert_lm_head(t, "cls.predictions", k.prefix + "embeddings.word_embeddings.weight", d, read_tie(cfg, t));
  } else if (k.task == "ForSequenceClassification") {
    blocks::linear(t, "classifier.dense", h, h, true);
    blocks::linear(t, "classifier.out_proj", h, num_labels(cfg), true);
  } else if (k.task == "ForMultipleChoice") {
    blocks::linear(t, "pre_classifier", h, h, true);
    blocks::linear(t, "classifier", h, 1, true);
  } else if (k.task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (k.task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", h, 2,
                   true);  // the class sets config.num_labels = 2 itself
  }
}

// NystromformerSelfAttention reads config["inv_init_coeff_option"] when
// inv_coeff_init_option holds, and a config object cannot be indexed:
// transformers raises TypeError.
void build_nystromformer(const ModelConfig& cfg, ModelTemplate& t) {
  if (cfg.flag_or("inv_coeff_init_option", false))
    cfg.fail("inv_coeff_init_option",
             "must be false: NystromformerSelfAttention indexes the config "
             "with it set and raises");
  build_uw_encoder(cfg, t,
                   {.family = "Nystromformer",
                    .base = "nystromformer",
                    .defaults = {.vocab = 30000, .positions = 510},
                    .conv_key = "conv_kernel_size",
                    .conv_default = 65,
                    .persistent_positions = false});
}

void build_yoso(const ModelConfig& cfg, ModelTemplate& t) {
  build_uw_encoder(cfg, t,
                   {.family = "Yoso",
                    .base = "yoso",
                    .defaults = {.vocab = 50265, .positions = 4096, .type_vocab = 1},
                    .conv_key = "conv_window",
                    .conv_default = 0,
                    .persistent_positions = false});
}

// approx_mode picks MRA's kernel path: "full" (all resolutions) or "sparse"
// (highest only); MraSelfAttention raises on any other at run time.
void build_mra(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string mode = cfg.string_or("approx_mode", "full");
  if (mode != "full" && mode != "sparse") cfg.fail("approx_mode", "must be full or sparse");
  build_uw_encoder(cfg, t,
                   {.family = "Mra",
                    .base = "mra",
                    .defaults = {.vocab = 50265, .type_vocab = 1},
                    .conv_key = nullptr,
                    .conv_default = 0,
                    .persistent_positions = true});
}

// ---- FNet: BERT with a Fourier transform for attention ----

// Each layer's fourier.self has no weights: the mixer is torch.fft.fftn over
// sequence and hidden, so the record's layers have no mixer (Mixer::None, no
// heads, nothing cached) and a dense MLP. With use_tpu_fourier_optimizations
// and max_position_embeddings <= 4096, the layer instead multiplies by two DFT
// matrices it keeps as persistent complex64 buffers (when SciPy is installed,
// which builds them). The embeddings end with a projection; every class keeps
// the pooler.
void build_fnet(const ModelConfig& cfg, ModelTemplate& t) {
  const VariantClass k = variant_class(
      cfg, "FNet", "fnet",
      {"Model", "ForPreTraining", "ForMaskedLM", "ForNextSentencePrediction", "ForSequenceClassification",
       "ForMultipleChoice", "ForTokenClassification", "ForQuestionAnswering"});
  TextEncoderDims d;
  d.vocab = cfg.dim_or("vocab_size", 32000);
  d.max_positions = cfg.dim_or("max_position_embeddings", 512);
  d.type_vocab = cfg.dim_or("type_vocab_size", 4);
  d.layers = cfg.layers_or("num_hidden_layers", 12, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", 768);
  d.layer.ffn = cfg.dim_or("intermediate_size", 3072);
  const uint64_t h = d.layer.hidden;
  const bool dft_buffers = cfg.flag_or("use_tpu_fourier_optimizations", false) && d.max_positions <= 4096;
  const uint64_t short_seq = cfg.dim_or("tpu_short_seq_length", 512);
  ArchitectureRecord& a = t.arch;
  a.architecture = k.cls;
  a.post_norm = true;
  a.norm = NormKind::LayerNorm;
  a.hidden_size = h;
  a.num_layers = d.layers;
  a.vocab_size = d.vocab;
  a.intermediate_size = d.layer.ffn;
  a.max_position_embeddings = d.max_positions;
  const std::string e = k.prefix + "embeddings.";
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
  blocks::linear(t, e + "projection", h, h, true);
  StackSpec& s = a.add_stack(StackRole::Encoder, k.prefix + "encoder.layer", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string p = s.path + "." + std::to_string(i);
    if (dft_buffers) {
      persistent_buffer(t, p + ".fourier.self.dft_mat_hidden", {h, h}, DType::C64);
      persistent_buffer(t, p + ".fourier.self.dft_mat_seq", {short_seq, short_seq}, DType::C64);
    }
    blocks::norm(t, p + ".fourier.output.LayerNorm", h, true);
    blocks::linear(t, p + ".intermediate.dense", h, d.layer.ffn, true);
    blocks::linear(t, p + ".output.dense", d.layer.ffn, h, true);
    blocks::norm(t, p + ".output.LayerNorm", h, true);
    LayerSpec l;
    l.mixer = Mixer::None;
    s.layers.push_back(l);
  }
  blocks::linear(t, k.prefix + "pooler.dense", h, h, true);
  if (is_one_of(k.task, {"ForPreTraining", "ForMaskedLM"}))
    bert_lm_head(t, "cls.predictions", e + "word_embeddings.weight", d, read_tie(cfg, t));
  if (is_one_of(k.task, {"ForPreTraining", "ForNextSentencePrediction"}))
    blocks::linear(t, "cls.seq_relationship", h, 2, true);
  else if (is_one_of(k.task, {"ForSequenceClassification", "ForTokenClassification"}))
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  else if (k.task == "ForMultipleChoice")
    blocks::linear(t, "classifier", h, 1, true);
  else if (k.task == "ForQuestionAnswering")
    blocks::linear(t, "qa_outputs", h, num_labels(cfg), true);
}

// ---- LUKE: RoBERTa with entities ----

// Beside the word embeddings, an entity table of entity_emb_size (E) columns,
// projected to the hidden size when E differs, with its own position and
// token-type tables and LayerNorm. With use_entity_aware_attention each layer
// adds word-to-entity, entity-to-word and entity-to-entity queries after query,
// key and value. The masked-LM class predicts words through RoBERTa's head,
// whose decoder transformers 5 no longer ties to the word table (only its bias
// to the head's own), and entities through a head whose decoder is the entity
// table when tied. The token-classification and QA classes build no pooler; the
// entity-pair classifier has no bias.
void build_luke(const ModelConfig& cfg, ModelTemplate& t) {
  const VariantClass k =
      variant_class(cfg, "Luke", "luke",
                    {"Model", "ForMaskedLM", "ForEntityClassification", "ForEntityPairClassification",
                     "ForEntitySpanClassification", "ForSequenceClassification", "ForTokenClassification",
                     "ForQuestionAnswering", "ForMultipleChoice"});
  const TextEncoderDims d = read_bert_dims(cfg, {.vocab = 50267});
  const uint64_t h = d.layer.hidden, entities = cfg.dim_or("entity_vocab_size", 500000),
                 width = cfg.dim_or("entity_emb_size", 256);
  const bool entity_aware = cfg.flag_or("use_entity_aware_attention", true);
  start_encoder_record(t, k.cls, d);
  const std::string e = k.prefix + "embeddings.", ee = k.prefix + "entity_embeddings.";
  blocks::embedding(t, e + "word_embeddings.weight", d.vocab, h);
  blocks::embedding(t, e + "position_embeddings.weight", d.max_positions, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
  blocks::embedding(t, ee + "entity_embeddings.weight", entities, width);
  if (width != h) blocks::linear(t, ee + "entity_embedding_dense", width, h, false);
  blocks::embedding(t, ee + "position_embeddings.weight", d.max_positions, h);
  blocks::embedding(t, ee + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, ee + "LayerNorm", h, true);
  post_norm_stack(t, k.prefix, d, [&](const std::string& self) {
    if (!entity_aware) return;
    for (const char* q : {".w2e_query", ".e2w_query", ".e2e_query"}) blocks::linear(t, self + q, h, h, true);
  });
  if (!is_one_of(k.task, {"ForTokenClassification", "ForQuestionAnswering"}))
    blocks::linear(t, k.prefix + "pooler.dense", h, h, true);
  const uint64_t labels = num_labels(cfg);
  if (k.task == "ForMaskedLM") {
    const bool tied = read_tie(cfg, t);
    t.add("lm_head.bias", {d.vocab});
    blocks::linear(t, "lm_head.dense", h, h, true);
    blocks::norm(t, "lm_head.layer_norm", h, true);
    blocks::linear(t, "lm_head.decoder", h, d.vocab, true);
    if (tied) tie_to_later(t, "lm_head.bias", "lm_head.decoder.bias");
    t.add("entity_predictions.bias", {entities});
    blocks::linear(t, "entity_predictions.transform.dense", h, width, true);
    blocks::norm(t, "entity_predictions.transform.LayerNorm", width, true);
    tied_or_own(t, "entity_predictions.decoder.weight", ee + "entity_embeddings.weight", tied);
  } else if (is_one_of(k.task,
                       {"ForEntityClassification", "ForSequenceClassification", "ForTokenClassification"})) {
    blocks::linear(t, "classifier", h, labels, true);
  } else if (k.task == "ForEntityPairClassification") {
    blocks::linear(t, "classifier", 2 * h, labels, false);
  } else if (k.task == "ForEntitySpanClassification") {
    blocks::linear(t, "classifier", 3 * h, labels, true);
  } else if (k.task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", h, labels, true);
  } else if (k.task == "ForMultipleChoice") {
    blocks::linear(t, "classifier", h, 1, true);
  }
}

// ---- Jina-Embeddings-v3: XLM-RoBERTa's tables and heads around rotary
// post-norm layers ----

// No position table (rotary positions, rope_theta 20000); the layers name their
// modules Llama's way but normalise after attention and after the MLP. The base
// model registers its pooler before its layers; the task classes build their
// head before the base model, without a pooler, so the masked-LM decoder ties
// to a word table listed after it. The five task adapters are PEFT LoRA files
// in subfolders of the repository, loaded on demand: not part of this
// state_dict.
void build_jina_embeddings_v3(const ModelConfig& cfg, ModelTemplate& t) {
  const VariantClass k = variant_class(cfg, "JinaEmbeddingsV3", "roberta",
                                       {"Model", "ForMaskedLM", "ForSequenceClassification",
                                        "ForTokenClassification", "ForQuestionAnswering"});
  TextEncoderDims d = read_bert_dims(cfg, {.vocab = 250002,
                                           .positions = 8194,
                                           .type_vocab = 1,
                                           .layers = 24,
                                           .hidden = 1024,
                                           .heads = 16,
                                           .ffn = 4096});
  const uint64_t h = d.layer.hidden, labels = num_labels(cfg);
  // JinaEmbeddingsV3Attention takes head_dim from the config when config.json
  // sets one.
  const uint64_t width = d.layer.heads * cfg.dim_or("head_dim", h / d.layer.heads);
  start_encoder_record(t, k.cls, d);
  t.arch.head_dim = width / d.layer.heads;
  t.arch.position = PositionKind::Rope;
  const std::string word = k.prefix + "embeddings.word_embeddings.weight";
  if (k.task == "ForMaskedLM") {
    t.add("lm_head.bias", {d.vocab});
    blocks::linear(t, "lm_head.dense", h, h, true);
    blocks::norm(t, "lm_head.layer_norm", h, true);
    t.add("lm_head.decoder.weight", {d.vocab, h});  // the word table, tied below once it is listed
    tied_or_own(t, "lm_head.decoder.bias", "lm_head.bias", read_tie(cfg, t));
  } else if (k.task == "ForSequenceClassification") {
    blocks::linear(t, "classifier.dense", h, h, true);
    blocks::linear(t, "classifier.out_proj", h, labels, true);
  } else if (k.task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, labels, true);
  } else if (k.task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", h, labels, true);
  }
  const std::string e = k.prefix + "embeddings.";
  blocks::embedding(t, word, d.vocab, h);
  blocks::embedding(t, e + "token_type_embeddings.weight", d.type_vocab, h);
  blocks::norm(t, e + "LayerNorm", h, true);
  if (k.task == "Model") blocks::linear(t, "pooler.dense", h, h, true);
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, k.prefix + "layers", h);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string p = s.path + "." + std::to_string(i);
    blocks::norm(t, p + ".post_attention_layernorm", h, true);
    blocks::linear(t, p + ".mlp.fc1", h, d.layer.ffn, true);
    blocks::linear(t, p + ".mlp.fc2", d.layer.ffn, h, true);
    blocks::linear(t, p + ".self_attn.q_proj", h, width, true);
    blocks::linear(t, p + ".self_attn.k_proj", h, width, true);
    blocks::linear(t, p + ".self_attn.v_proj", h, width, true);
    blocks::linear(t, p + ".self_attn.o_proj", width, h, true);
    blocks::norm(t, p + ".post_mlp_layernorm", h, true);
    s.layers.push_back(attention_dense_layer());
  }
  if (k.task == "ForMaskedLM" && t.arch.tie_word_embeddings) tie_to_later(t, "lm_head.decoder.weight", word);
}

// ---- EuroBERT: Llama's layers as a bidirectional encoder ----

// EuroBertModel is LlamaModel's layout (RMSNorm, GQA with rotary positions,
// SwiGLU) without the causal mask. The masked-LM head is one Linear whose bias
// follows mlp_bias, tied only with tie_word_embeddings (false by default); the
// sequence classifier puts a dense layer before its classifier. EuroBertConfig
// refuses a hidden size its heads do not divide even when head_dim is given.
void build_eurobert(const ModelConfig& cfg, ModelTemplate& t) {
  const VariantClass k =
      variant_class(cfg, "EuroBert", "model",
                    {"Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification"});
  const std::string pooling = cfg.string_or("classifier_pooling", "late");
  if (pooling != "bos" && pooling != "mean" && pooling != "late")
    cfg.fail("classifier_pooling", "must be bos, mean or late");
  DecoderDefaults dflt;
  dflt.vocab_size = 128256;
  dflt.hidden_size = 768;
  dflt.intermediate_size = 3072;
  dflt.num_hidden_layers = 12;
  dflt.num_attention_heads = 12;
  dflt.max_position_embeddings = 8192;
  read_decoder_dims(cfg, dflt, t);
  ArchitectureRecord& a = t.arch;
  split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
  a.architecture = k.cls;
  a.norm = NormKind::RmsNorm;
  LlamaStyle s = attention_bias_style(cfg);
  s.mlp_bias = cfg.flag_or("mlp_bias", false);
  llama_style_decoder(t, k.prefix, s);
  a.stacks.back().role = StackRole::Encoder;  // every token attends to every other
  const uint64_t h = a.hidden_size;
  if (k.task == "ForMaskedLM") {
    lm_head(t, "model.embed_tokens.weight", a);
    if (s.mlp_bias) t.add("lm_head.bias", {a.vocab_size});
  } else if (k.task == "ForSequenceClassification") {
    blocks::linear(t, "dense", h, h, true);
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (k.task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  }
}

// ---- ModernBERT-decoder: ModernBERT's blocks, causal ----

// ModernBERT's body (encoders_common.h) under a causal mask. The causal LM's prediction head (dense, norm)
// precedes the decoder, tied to the token embedding by default, with a bias by decoder_bias; the sequence
// classifier's bias follows classifier_bias.
void build_modernbert_decoder(const ModelConfig& cfg, ModelTemplate& t) {
  const VariantClass k =
      variant_class(cfg, "ModernBertDecoder", "model", {"Model", "ForCausalLM", "ForSequenceClassification"});
  t.arch.architecture = k.cls;
  const bool norm_bias = modernbert_body(cfg, t, k.prefix, ModernBertKind::Decoder);
  if (k.task == "Model") return;
  const uint64_t h = t.arch.hidden_size;
  const bool classifier_bias = cfg.flag_or("classifier_bias", false);
  const std::string head = k.task == "ForCausalLM" ? "lm_head" : "head";
  blocks::linear(t, head + ".dense", h, h, classifier_bias);
  blocks::norm(t, head + ".norm", h, norm_bias);
  if (k.task == "ForCausalLM") {
    tied_or_own(t, "decoder.weight", "model.embeddings.tok_embeddings.weight", read_tie(cfg, t));
    if (cfg.flag_or("decoder_bias", true)) t.add("decoder.bias", {t.arch.vocab_size});
  } else {
    blocks::linear(t, "classifier", h, num_labels(cfg), classifier_bias);
  }
}

constexpr std::array kBertVariantFamilies{
    FamilyBuilder{"eurobert", build_eurobert},
    FamilyBuilder{"modernbert-decoder", build_modernbert_decoder},
    FamilyBuilder{"jina_embeddings_v3", build_jina_embeddings_v3},
    FamilyBuilder{"luke", build_luke},
    FamilyBuilder{"fnet", build_fnet},
    FamilyBuilder{"nystromformer", build_nystromformer},
    FamilyBuilder{"yoso", build_yoso},
    FamilyBuilder{"mra", build_mra},
};

}  // namespace

std::span<const FamilyBuilder> bert_variants_3() {
  return kBertVariantFamilies;
}

}  // namespace ma::families
