// Encoders (BERT, RoBERTa, XLM-RoBERTa, CamemBERT, MPNet, DistilBERT, ModernBERT, ViT; ALBERT, ELECTRA and
// DeBERTa in encoders_bert_relatives.cpp and encoders_deberta.cpp) and encoder-decoders (BART, mBART,
// Pegasus, T5, mT5, Whisper; encoders_seq2seq.cpp). Unlike decoder-only LMs, the class config.json names
// decides the tensors: a base model carries a pooler, a masked-LM head ties its decoder to the word
// embeddings, classification heads add their own linears.
#include <array>
#include <optional>
#include <vector>

#include "core/error.h"
#include "model/families/decoder_llama.h"
#include "model/families/encoders_bert_relatives.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/family_groups.h"

namespace ma::families {
namespace {

// ---- BERT-style text encoders ----

// The masked-LM head: transform (dense + LayerNorm), an output bias, and a decoder whose weight is the word
// embedding and whose bias is that output bias when tie_word_embeddings holds.
struct MaskedLmNames {
  std::string head, dense, norm;
};
void masked_lm_head(ModelTemplate& t, const MaskedLmNames& n, const std::string& word, uint64_t hidden,
                    uint64_t vocab, bool tied) {
  const std::string& head = n.head;
  // The head's own bias Parameter comes before its submodules' tensors in state_dict.
  t.add(head + ".bias", {vocab});
  blocks::linear(t, head + n.dense, hidden, hidden, true);
  blocks::norm(t, head + n.norm, hidden, true);
  tied_or_own(t, head + ".decoder.weight", word, tied);
  tied_or_own(t, head + ".decoder.bias", head + ".bias", tied);
}

// The pre-norm relatives normalise before attention and before the MLP, each spelling those norms its own
// way, and end the encoder with one more norm (`final`, under the base model's prefix).
struct PreNormNames {
  std::string_view attention, mlp, final;
};

struct BertStyle {
  std::string_view family;  // class prefix: "Bert", "Roberta", "XLMRoberta"
  std::string_view base;    // attribute of the base model in task classes: "bert", "roberta"
  bool roberta = false;     // lm_head / two-layer classifier naming
  BertDefaults defaults = {};
  std::optional<PreNormNames> pre_norm = std::nullopt;  // none: BERT's post-norm layers
  bool embedding_norm = true;      // XLM-RoBERTa-XL and Megatron-BERT normalise no embedding
  bool task_type_ids = false;      // ERNIE 3.0: task_type_embeddings when use_task_id
  bool language_adapters = false;  // X-MOD (below)
};

// X-MOD: each layer's output block holds one bottleneck adapter per language of `languages` (dense1 down to
// hidden / adapter_reduction_factor, dense2 back up) and, with adapter_layer_norm, one LayerNorm they share.
// The languages' codes name the adapters' modules.
void language_adapters(const ModelConfig& cfg, ModelTemplate& t, const std::string& stack,
                       const TextEncoderDims& d) {
  const std::vector<std::string> languages =
      cfg.has("languages") ? cfg.strings("languages") : std::vector<std::string>{"en_XX"};
  if (languages.empty()) cfg.fail("languages", "must name at least one language");
  for (const std::string& code : languages)
    if (code.empty() || code.size() > 32 ||
        code.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
            std::string::npos)
      cfg.fail("languages", "must be language codes of letters, digits, '_' and '-' (up to 32)");
  const uint64_t h = d.layer.hidden, bottleneck = h / cfg.dim_or("adapter_reduction_factor", 2);
  if (bottleneck == 0) cfg.fail("adapter_reduction_factor", "must not exceed hidden_size");
  const bool shared_norm = cfg.flag_or("adapter_layer_norm", false);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string out = stack + "." + std::to_string(i) + ".output.";
    if (shared_norm) blocks::norm(t, out + "adapter_layer_norm", h, true);
    for (const std::string& code : languages) {
      blocks::linear(t, out + "adapter_modules." + code + ".dense1", h, bottleneck, true);
      blocks::linear(t, out + "adapter_modules." + code + ".dense2", bottleneck, h, true);
    }
  }
}

// The pre-norm relatives' and X-MOD's cross-attention blocks are not modelled.
[[noreturn]] void unsupported_cross_attention(const ModelConfig& cfg, std::string_view family) {
  throw Error(ErrorKind::Unsupported, cfg.file(), "add_cross_attention",
              "unsupported architecture: " + std::string(family) + " with cross-attention");
}

// Which task classes carry the base model's pooler.
bool bert_task_has_pooler(const BertStyle& s, const std::string& task) {
  return task == "Model" || task == "ForPreTraining" || task == "ForNextSentencePrediction" ||
         task == "ForMultipleChoice" || (!s.roberta && task == "ForSequenceClassification");
}

void bert_task_head(const ModelConfig& cfg, ModelTemplate& t, const BertStyle& s, const std::string& task,
                    const std::string& prefix, const TextEncoderDims& d) {
  const uint64_t h = d.layer.hidden;
  const std::string word = prefix + "embeddings.word_embeddings.weight";
  const bool mlm =
      task == "ForMaskedLM" || task == "ForCausalLM" || task == "LMHeadModel" || task == "ForPreTraining";
  if (mlm) {
    bool tied = read_tie(cfg, t);
    MaskedLmNames n = s.roberta
                          ? MaskedLmNames{"lm_head", ".dense", ".layer_norm"}
                          : MaskedLmNames{"cls.predictions", ".transform.dense", ".transform.LayerNorm"};
    masked_lm_head(t, n, word, h, d.vocab, tied);
  }
  if (task == "ForPreTraining" || task == "ForNextSentencePrediction")
    blocks::linear(t, "cls.seq_relationship", h, 2, true);
  if (task == "ForSequenceClassification" && s.roberta) {
    blocks::linear(t, "classifier.dense", h, h, true);
    blocks::linear(t, "classifier.out_proj", h, num_labels(cfg), true);
  } else if (task == "ForSequenceClassification" || task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (task == "ForMultipleChoice") {
    blocks::linear(t, "classifier", h, 1, true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", h, 2, true);
  }
}

void build_bert_style(const ModelConfig& cfg, ModelTemplate& t, const BertStyle& s) {
  t.arch.post_norm = !s.pre_norm;
  std::string cls = architecture_of(cfg, std::string(s.family) + "Model");
  std::string task =
      supported_task(cfg, cls, s.family,
                     {"Model", "ForMaskedLM", s.roberta ? "ForCausalLM" : "LMHeadModel", "ForPreTraining",
                      "ForNextSentencePrediction", "ForSequenceClassification", "ForTokenClassification",
                      "ForQuestionAnswering", "ForMultipleChoice"});
  TextEncoderDims d = read_bert_dims(cfg, s.defaults);
  d.embedding_norm = s.embedding_norm;
  d.positions_last = s.roberta;
  fill_encoder_record(t, cls, d);
  std::string prefix = task == "Model" ? "" : std::string(s.base) + ".";
  LayerNames names = bert_layer_names();
  if (s.pre_norm) {
    names.attn_norm = s.pre_norm->attention;
    names.ffn_norm = s.pre_norm->mlp;
  }
  // is_decoder with add_cross_attention (EncoderDecoderModel's decoder) gives every layer a cross-attention
  // block after its self-attention; add_cross_attention alone makes BertLayer raise.
  const bool cross = cfg.flag_or("add_cross_attention", false);
  if (cross && !cfg.flag_or("is_decoder", false))
    cfg.fail("add_cross_attention",
             "needs is_decoder: transformers' layers refuse cross-attention otherwise");
  if (cross) {
    if (s.pre_norm || s.language_adapters) unsupported_cross_attention(cfg, s.family);
    names.cross_q = "crossattention.self.query";
    names.cross_k = "crossattention.self.key";
    names.cross_v = "crossattention.self.value";
    names.cross_o = "crossattention.output.dense";
    names.cross_norm = "crossattention.output.LayerNorm";
  }
  text_encoder_body(t, prefix, "encoder.layer", names, d);
  if (cross)
    for (LayerSpec& l : t.arch.stack(StackRole::Encoder)->layers) l.cross_attention = l.attention;
  // is_decoder makes the layers causal, with a KV cache (BertLMHeadModel, EncoderDecoderModel's decoder): the
  // stack is a decoder's, which the KV cache and an encoder-decoder composite's record read.
  if (cfg.flag_or("is_decoder", false)) t.arch.stack(StackRole::Encoder)->role = StackRole::Decoder;
  if (s.task_type_ids && cfg.flag_or("use_task_id", false))
    blocks::embedding(t, prefix + "embeddings.task_type_embeddings.weight",
                      cfg.dim_or("task_type_vocab_size", 3), d.layer.hidden);
  if (s.pre_norm) blocks::norm(t, prefix + std::string(s.pre_norm->final), d.layer.hidden, true);
  if (s.language_adapters) {
    language_adapters(cfg, t, prefix + "encoder.layer", d);
    // pre_norm applies the same LayerNorms before the blocks, and one more after the encoder.
    t.arch.post_norm = !cfg.flag_or("pre_norm", false);
    if (!t.arch.post_norm) blocks::norm(t, prefix + "encoder.LayerNorm", d.layer.hidden, true);
  }
  if (bert_task_has_pooler(s, task))
    blocks::linear(t, prefix + "pooler.dense", d.layer.hidden, d.layer.hidden, true);
  bert_task_head(cfg, t, s, task, prefix, d);
}

void build_bert(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(cfg, t, {"Bert", "bert", false});
}
// The pre-norm relatives. RoBERTa-PreLayerNorm normalises before attention (attention.LayerNorm) and before
// the MLP (intermediate.LayerNorm) and after the encoder (<base>.LayerNorm).
void build_roberta_prelayernorm(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(cfg, t,
                   {.family = "RobertaPreLayerNorm",
                    .base = "roberta_prelayernorm",
                    .roberta = true,
                    .defaults = {.vocab = 50265},
                    .pre_norm = PreNormNames{"attention.LayerNorm", "intermediate.LayerNorm", "LayerNorm"}});
}
// XLM-RoBERTa-XL and -XXL: no embedding norm, attention.self_attn_layer_norm before attention, the layer's
// own LayerNorm before the MLP, encoder.LayerNorm after the encoder; the class defaults are the XL's.
void build_xlm_roberta_xl(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(
      cfg, t,
      {.family = "XLMRobertaXL",
       .base = "roberta",
       .roberta = true,
       .defaults = {.vocab = 250880,
                    .positions = 514,
                    .type_vocab = 1,
                    .layers = 36,
                    .hidden = 2560,
                    .heads = 32,
                    .ffn = 10240},
       .pre_norm = PreNormNames{"attention.self_attn_layer_norm", "LayerNorm", "encoder.LayerNorm"},
       .embedding_norm = false});
}
// Megatron-BERT (NVIDIA's 345M, converted from NGC): BERT's heads, no embedding norm, attention.ln and the
// layer's ln before attention and MLP, encoder.ln after; the class defaults are the cased 345M's.
void build_megatron_bert(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(cfg, t,
                   {.family = "MegatronBert",
                    .base = "bert",
                    .defaults = {.vocab = 29056, .layers = 24, .hidden = 1024, .heads = 16, .ffn = 4096},
                    .pre_norm = PreNormNames{"attention.ln", "ln", "encoder.ln"},
                    .embedding_norm = false});
}

void build_roberta(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(cfg, t, {"Roberta", "roberta", true, {.vocab = 50265}});
}
// XLMRobertaModel and CamembertModel are RobertaModel with BERT's default vocabulary, and so is
// Data2VecTextModel under its own prefix.
void build_xlm_roberta(const ModelConfig& cfg, ModelTemplate& t) {
  // XLM-RoBERTa-XXL's upload names xlm-roberta with the XL class.
  if (architecture_of(cfg, "").starts_with("XLMRobertaXL")) return build_xlm_roberta_xl(cfg, t);
  build_bert_style(cfg, t, {"XLMRoberta", "roberta", true});
}
void build_camembert(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(cfg, t, {"Camembert", "roberta", true});
}
void build_xmod(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(cfg, t, {.family = "Xmod", .base = "roberta", .roberta = true, .language_adapters = true});
}
void build_data2vec_text(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(cfg, t, {"Data2VecText", "data2vec_text", true});
}
// ERNIE 1.0-3.0 (nghuyong's ports): BERT, and with use_task_id a table of task types beside the token types.
void build_ernie(const ModelConfig& cfg, ModelTemplate& t) {
  build_bert_style(cfg, t, {.family = "Ernie", .base = "ernie", .task_type_ids = true});
}

// ---- MPNet: RoBERTa's heads over layers named attention.attn.{q,k,v,o}, no token types, and one table of
// relative-position biases for the whole encoder ----

void build_mpnet(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  const BertStyle s{"MPNet", "mpnet", true, {.vocab = 30527}};
  const std::string cls = architecture_of(cfg, "MPNetModel");
  const std::string task =
      supported_task(cfg, cls, s.family,
                     {"Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
                      "ForQuestionAnswering", "ForMultipleChoice"});
  TextEncoderDims d = read_bert_dims(cfg, s.defaults);
  d.type_vocab = 0;  // MPNetConfig has no type_vocab_size
  fill_encoder_record(t, cls, d);
  LayerNames n = bert_layer_names();
  n.q = "attention.attn.q";
  n.k = "attention.attn.k";
  n.v = "attention.attn.v";
  n.o = "attention.attn.o";
  n.attn_norm = "attention.LayerNorm";
  const std::string prefix = task == "Model" ? "" : std::string(s.base) + ".";
  text_encoder_body(t, prefix, "encoder.layer", n, d);
  blocks::embedding(t, prefix + "encoder.relative_attention_bias.weight",
                    cfg.dim_or("relative_attention_num_buckets", 32), d.layer.heads);
  if (bert_task_has_pooler(s, task))
    blocks::linear(t, prefix + "pooler.dense", d.layer.hidden, d.layer.hidden, true);
  bert_task_head(cfg, t, s, task, prefix, d);
}

// ---- ModernBERT ----

std::vector<uint64_t> modernbert_windows(const ModelConfig& cfg, uint64_t layers, uint64_t window) {
  if (cfg.has("layer_types")) return interleaved_windows(cfg, layers, window, 1);
  const uint64_t every = cfg.dim_or("global_attn_every_n_layers", 3);
  std::vector<uint64_t> w(layers, 0);
  for (uint64_t i = 0; i < layers; ++i) w[i] = i % every ? window : 0;
  return w;
}

}  // namespace

bool modernbert_body(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix,
                     ModernBertKind kind) {
  ArchitectureRecord& a = t.arch;
  a.norm = NormKind::LayerNorm;
  a.vocab_size = cfg.dim_or("vocab_size", 50368);
  a.hidden_size = cfg.dim_or("hidden_size", 768);
  a.intermediate_size = cfg.dim_or("intermediate_size", 1152);
  a.num_layers = cfg.layers_or("num_hidden_layers", 22, 0);
  a.num_attention_heads = a.num_key_value_heads = cfg.dim_or("num_attention_heads", 12);
  a.head_dim = split_heads(cfg, "num_attention_heads", a.hidden_size, a.num_attention_heads);
  a.max_position_embeddings = cfg.count_or("max_position_embeddings", 8192);
  const bool norm_bias = cfg.flag_or("norm_bias", false),
             attention_bias = cfg.flag_or("attention_bias", false), mlp_bias = cfg.flag_or("mlp_bias", false);
  const bool encoder = kind == ModernBertKind::Encoder;
  const bool null_window = !encoder && cfg.raw("local_attention") && !cfg.has("local_attention");
  const uint64_t window = null_window ? 0 : cfg.count_or("local_attention", 128) / (encoder ? 1 : 2);
  const std::vector<uint64_t> windows = modernbert_windows(cfg, a.num_layers, window);
  const uint64_t h = a.hidden_size, inter = a.intermediate_size;
  blocks::embedding(t, prefix + "embeddings.tok_embeddings.weight", a.vocab_size, h);
  blocks::norm(t, prefix + "embeddings.norm", h, norm_bias);
  StackSpec& s = a.add_stack(encoder ? StackRole::Encoder : StackRole::Decoder, prefix + "layers", h);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = s.path + "." + std::to_string(i);
    if (i > 0) blocks::norm(t, p + ".attn_norm", h, norm_bias);
    if (encoder)
      blocks::linear(t, p + ".attn.Wqkv", h, 3 * h, attention_bias);
    else
      for (const char* proj : {".attn.q_proj", ".attn.k_proj", ".attn.v_proj"})
        blocks::linear(t, p + proj, h, h, attention_bias);
    blocks::linear(t, p + ".attn.Wo", h, h, attention_bias);
    blocks::norm(t, p + ".mlp_norm", h, norm_bias);
    blocks::linear(t, p + ".mlp.Wi", h, 2 * inter, mlp_bias);
    blocks::linear(t, p + ".mlp.Wo", inter, h, mlp_bias);
    LayerSpec l = attention_dense_layer();
    set_window(l.attention, windows[i]);
    s.layers.push_back(l);
  }
  blocks::norm(t, prefix + "final_norm", h, norm_bias);
  return norm_bias;
}

namespace {

void build_modernbert(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ModernBertModel");
  const std::string task =
      supported_task(cfg, cls, "ModernBert",
                     {"Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification"});
  t.arch.architecture = cls;
  const std::string prefix = task == "Model" ? "" : "model.";
  const bool norm_bias = modernbert_body(cfg, t, prefix, ModernBertKind::Encoder);
  if (task == "Model") return;
  const uint64_t h = t.arch.hidden_size;
  // The prediction head (dense, activation, norm) every task class puts on the encoder.
  blocks::linear(t, "head.dense", h, h, cfg.flag_or("classifier_bias", false));
  blocks::norm(t, "head.norm", h, norm_bias);
  if (task == "ForMaskedLM") {
    tied_or_own(t, "decoder.weight", prefix + "embeddings.tok_embeddings.weight", read_tie(cfg, t));
    if (cfg.flag_or("decoder_bias", true)) t.add("decoder.bias", {t.arch.vocab_size});
  } else {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  }
}

// ---- DistilBERT ----

void build_distilbert(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.post_norm = true;
  std::string cls = architecture_of(cfg, "DistilBertModel");
  std::string task = supported_task(cfg, cls, "DistilBert",
                                    {"Model", "ForMaskedLM", "ForSequenceClassification",
                                     "ForTokenClassification", "ForQuestionAnswering", "ForMultipleChoice"});
  TextEncoderDims d;
  d.vocab = cfg.dim_or("vocab_size", 30522);
  d.max_positions = cfg.dim_or("max_position_embeddings", 512);
  d.layers = cfg.layers_or("n_layers", 6, 0);
  d.layer.hidden = cfg.dim_or("dim", 768);
  d.layer.heads = cfg.dim_or("n_heads", 12);
  d.layer.ffn = cfg.dim_or("hidden_dim", 4 * 768);
  split_heads(cfg, "n_heads", d.layer.hidden, d.layer.heads);
  fill_encoder_record(t, cls, d);

  LayerNames n;
  n.q = "attention.q_lin";
  n.k = "attention.k_lin";
  n.v = "attention.v_lin";
  n.o = "attention.out_lin";
  n.attn_norm = "sa_layer_norm";
  n.fc1 = "ffn.lin1";
  n.fc2 = "ffn.lin2";
  n.ffn_norm = "output_layer_norm";
  std::string prefix = task == "Model" ? "" : "distilbert.";
  text_encoder_body(t, prefix, "transformer.layer", n, d);

  const uint64_t h = d.layer.hidden;
  if (task == "ForMaskedLM") {
    blocks::linear(t, "vocab_transform", h, h, true);
    blocks::norm(t, "vocab_layer_norm", h, true);
    tied_or_own(t, "vocab_projector.weight", prefix + "embeddings.word_embeddings.weight", read_tie(cfg, t));
    t.add("vocab_projector.bias", {d.vocab});
  } else if (task == "ForSequenceClassification" || task == "ForMultipleChoice") {
    blocks::linear(t, "pre_classifier", h, h, true);
    blocks::linear(t, "classifier", h, task == "ForMultipleChoice" ? 1 : num_labels(cfg), true);
  } else if (task == "ForTokenClassification") {
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", h, 2, true);
  }
}

// ---- ViT ----

// transformers 5 renamed ViT's layer modules; Hub checkpoints keep the original BERT-like names.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kVitDiskNames{{
    {"attention.q_proj", "attention.attention.query"},
    {"attention.k_proj", "attention.attention.key"},
    {"attention.v_proj", "attention.attention.value"},
    {"attention.o_proj", "attention.output.dense"},
    {"mlp.fc1", "intermediate.dense"},
    {"mlp.fc2", "output.dense"},
    {"layernorm_before", "layernorm_before"},
    {"layernorm_after", "layernorm_after"},
}};

}  // namespace

void vit_layer_on_disk(ModelTemplate& t, size_t first, const std::string& memory, const std::string& disk) {
  for (size_t i = first; i < t.tensors.size(); ++i) {
    TemplateTensor& x = t.tensors[i];
    std::string_view rest = std::string_view(x.name).substr(memory.size() + 1);
    for (const auto& [mem, stored] : kVitDiskNames) {
      if (!rest.starts_with(mem)) continue;
      DiskPiece piece;
      piece.name = disk + "." + std::string(stored) + std::string(rest.substr(mem.size()));
      piece.shape = x.shape;
      x.disk.push_back(std::move(piece));
    }
  }
}

// One ViTLayer under `p`: q/k/v (biased by qkv_bias) and o, layernorm_before and layernorm_after, then the
// MLP: the order ViTLayer registers them in.
void vit_layer(ModelTemplate& t, const std::string& p, const LayerDims& d) {
  blocks::linear(t, p + ".attention.q_proj", d.hidden, d.hidden, d.qkv_bias);
  blocks::linear(t, p + ".attention.k_proj", d.hidden, d.hidden, d.qkv_bias);
  blocks::linear(t, p + ".attention.v_proj", d.hidden, d.hidden, d.qkv_bias);
  blocks::linear(t, p + ".attention.o_proj", d.hidden, d.hidden, true);
  blocks::norm(t, p + ".layernorm_before", d.hidden, true);
  blocks::norm(t, p + ".layernorm_after", d.hidden, true);
  blocks::linear(t, p + ".mlp.fc1", d.hidden, d.ffn, true);
  blocks::linear(t, p + ".mlp.fc2", d.ffn, d.hidden, true);
}

// image_size / patch_size: an int, or a [height, width] pair.
std::pair<uint64_t, uint64_t> vit_pair(const ModelConfig& cfg, std::string_view key, uint64_t dflt) {
  const json::Value* v = cfg.raw(key);
  if (!v || !v->is_array()) {
    uint64_t n = cfg.dim_or(key, dflt);
    return {n, n};
  }
  const std::vector<int64_t> hw = cfg.ints(key);
  constexpr auto kMost = static_cast<int64_t>(ModelConfig::kMaxValue);
  if (hw.size() != 2 || hw[0] < 1 || hw[1] < 1 || hw[0] > kMost || hw[1] > kMost)
    cfg.fail(key, "must be an integer or [height, width] >= 1");
  return {static_cast<uint64_t>(hw[0]), static_cast<uint64_t>(hw[1])};
}

TextEncoderDims vit_base_dims(const ModelConfig& cfg) {
  TextEncoderDims d;
  d.layers = cfg.layers_or("num_hidden_layers", 12, 0);
  d.layer.hidden = cfg.dim_or("hidden_size", 768);
  d.layer.heads = cfg.dim_or("num_attention_heads", 12);
  d.layer.ffn = cfg.dim_or("intermediate_size", 3072);
  d.layer.qkv_bias = cfg.flag_or("qkv_bias", true);
  split_heads(cfg, "num_attention_heads", d.layer.hidden, d.layer.heads);
  return d;
}

void vit_encoder(ModelTemplate& t, const std::string& prefix, const TextEncoderDims& d, uint64_t patch,
                 uint64_t image) {
  const uint64_t h = d.layer.hidden;
  StackSpec& encoder = t.arch.add_stack(StackRole::Encoder, prefix + "layers", h);
  encoder.patch_size = patch;
  encoder.image_size = image;
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string p = encoder.path + "." + std::to_string(i);
    const size_t first = t.tensors.size();
    vit_layer(t, p, d.layer);
    vit_layer_on_disk(t, first, p, prefix + "encoder.layer." + std::to_string(i));
    encoder.layers.push_back(attention_dense_layer());
  }
  blocks::norm(t, prefix + "layernorm", h, true);
}

uint64_t vit_body(const ModelConfig& cfg, ModelTemplate& t, const std::string& cls, const std::string& prefix,
                  bool distillation_token) {
  TextEncoderDims d = vit_base_dims(cfg);
  const auto [image_h, image_w] = vit_pair(cfg, "image_size", 224);
  const auto [patch_h, patch_w] = vit_pair(cfg, "patch_size", 16);
  if (patch_h > image_h || patch_w > image_w) cfg.fail("patch_size", "must not exceed image_size");
  const uint64_t channels = cfg.dim_or("num_channels", 3);
  // A position for every patch, [CLS] and DeiT's [DIST].
  d.max_positions = (image_h / patch_h) * (image_w / patch_w) + (distillation_token ? 2 : 1);
  fill_encoder_record(t, cls, d);

  const uint64_t h = d.layer.hidden;
  // cls_token and position_embeddings are plain Parameters, not nn.Embedding: no embedding flag. The
  // embeddings' own parameters come before their patch_embeddings module's in state_dict.
  t.add(prefix + "embeddings.cls_token", {1, 1, h});
  t.add(prefix + "embeddings.position_embeddings", {1, d.max_positions, h});
  if (distillation_token) t.add(prefix + "embeddings.distillation_token", {1, 1, h});
  t.add(prefix + "embeddings.patch_embeddings.projection.weight", {h, channels, patch_h, patch_w});
  t.add(prefix + "embeddings.patch_embeddings.projection.bias", {h});
  vit_encoder(t, prefix, d, patch_h, image_h);
  t.arch.stack(StackRole::Encoder)->output_positions = d.max_positions;  // every position is an output
  return h;
}

namespace {

void build_vit(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ViTModel");
  const std::string task = supported_task(cfg, cls, "ViT", {"Model", "ForImageClassification"});
  const uint64_t h = vit_body(cfg, t, cls, task == "Model" ? "" : "vit.", false);
  if (task == "Model")
    blocks::linear(t, "pooler.dense", h, cfg.dim_or("pooler_output_size", h), true);
  else
    blocks::linear(t, "classifier", h, num_labels(cfg), true);
}

constexpr std::array kEncoderFamilies{
    FamilyBuilder{"bert", build_bert},
    FamilyBuilder{"roberta", build_roberta},
    FamilyBuilder{"xlm-roberta", build_xlm_roberta},
    FamilyBuilder{"camembert", build_camembert},
    FamilyBuilder{"data2vec-text", build_data2vec_text},
    FamilyBuilder{"ernie", build_ernie},
    FamilyBuilder{"roberta-prelayernorm", build_roberta_prelayernorm},
    FamilyBuilder{"xlm-roberta-xl", build_xlm_roberta_xl},
    FamilyBuilder{"megatron-bert", build_megatron_bert},
    FamilyBuilder{"esm", build_esm},
    FamilyBuilder{"roformer", build_roformer},
    FamilyBuilder{"xmod", build_xmod},
    FamilyBuilder{"mpnet", build_mpnet},
    FamilyBuilder{"modernbert", build_modernbert},
    FamilyBuilder{"distilbert", build_distilbert},
    FamilyBuilder{"albert", build_albert},
    FamilyBuilder{"electra", build_electra},
    FamilyBuilder{"deberta", build_deberta},
    FamilyBuilder{"deberta-v2", build_deberta_v2},
    FamilyBuilder{"vit", build_vit},
    FamilyBuilder{"bart", build_bart},
    FamilyBuilder{"mbart", build_mbart},
    FamilyBuilder{"pegasus", build_pegasus},
    FamilyBuilder{"marian", build_marian},
    FamilyBuilder{"m2m_100", build_m2m_100},
    FamilyBuilder{"blenderbot", build_blenderbot},
    FamilyBuilder{"blenderbot-small", build_blenderbot_small},
    FamilyBuilder{"plbart", build_plbart},
    FamilyBuilder{"mvp", build_mvp},
    FamilyBuilder{"led", build_led},
    FamilyBuilder{"pegasus_x", build_pegasus_x},
    FamilyBuilder{"t5", build_t5},
    FamilyBuilder{"mt5", build_mt5},
    FamilyBuilder{"umt5", build_umt5},
    FamilyBuilder{"longt5", build_longt5},
    FamilyBuilder{"switch_transformers", build_switch_transformers},
    FamilyBuilder{"whisper", build_whisper},
};

}  // namespace

std::span<const FamilyBuilder> encoders() {
  return kEncoderFamilies;
}

}  // namespace ma::families
