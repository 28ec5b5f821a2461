// T5 and its descendants: T5, mT5 and UMT5. Each block is [SelfAttention, (EncDecAttention),
// DenseReluDense] with RMS-style norms and relative position biases; the record's generic dimensions are the
// decoder's, or the encoder's for T5EncoderModel.
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/encoders_seq2seq_parts.h"

namespace ma::families {

namespace {

struct T5Dims {
  uint64_t d_model = 0, inner = 0, heads = 0, d_ff = 0, buckets = 0;
  bool gated = false;
  bool bias_every_layer = false;  // UMT5
};

// One T5 stack: blocks of [SelfAttention, (EncDecAttention), DenseReluDense], each sub-layer with its own
// RMS-style T5LayerNorm (weight only); block 0 alone owns the relative position bias, which the others
// reuse, but in UMT5, whose every self-attention learns its own (its cross-attention has none).
void t5_stack(ModelTemplate& t, const std::string& stack, uint64_t layers, const T5Dims& d, bool cross) {
  blocks::Attention at;
  at.hidden = d.d_model;
  at.heads = at.kv_heads = d.heads;
  at.head_dim = d.inner / d.heads;
  at.q = "q", at.k = "k", at.v = "v", at.o = "o";
  for (uint64_t i = 0; i < layers; ++i) {
    std::string p = stack + ".block." + std::to_string(i) + ".layer.";
    blocks::attention(t, p + "0.SelfAttention", at);
    if (i == 0 || d.bias_every_layer)
      blocks::embedding(t, p + "0.SelfAttention.relative_attention_bias.weight", d.buckets, d.heads);
    blocks::norm(t, p + "0.layer_norm", d.d_model, false);
    if (cross) {
      blocks::attention(t, p + "1.EncDecAttention", at);
      blocks::norm(t, p + "1.layer_norm", d.d_model, false);
    }
    std::string ff = p + (cross ? "2" : "1");
    if (d.gated) {
      blocks::linear(t, ff + ".DenseReluDense.wi_0", d.d_model, d.d_ff, false);
      blocks::linear(t, ff + ".DenseReluDense.wi_1", d.d_model, d.d_ff, false);
    } else {
      blocks::linear(t, ff + ".DenseReluDense.wi", d.d_model, d.d_ff, false);
    }
    blocks::linear(t, ff + ".DenseReluDense.wo", d.d_ff, d.d_model, false);
    blocks::norm(t, ff + ".layer_norm", d.d_model, false);
  }
  blocks::norm(t, stack + ".final_layer_norm", d.d_model, false);
}

// T5Config's defaults, and MT5Config's and UMT5Config's: mT5 is T5's code (gated-GELU, d_kv x heads below
// d_model) with other sizes; UMT5 mT5's sizes with a position bias in every self-attention.
struct T5Family {
  std::string_view prefix;  // class prefix: "T5", "MT5", "UMT5"
  uint64_t vocab, d_model, d_ff, layers, heads;
  std::string_view feed_forward_proj;
  bool bias_every_layer = false;
};
constexpr T5Family kT5{"T5", 32128, 512, 2048, 6, 8, "relu"};
constexpr T5Family kMT5{"MT5", 250112, 512, 1024, 8, 6, "gated-gelu"};
constexpr T5Family kUMT5{"UMT5", 250112, 512, 1024, 8, 6, "gated-gelu", true};

// feed_forward_proj is "{act}" or "gated-{act}"; T5Config rejects anything else.
bool t5_gated(const ModelConfig& cfg, std::string_view dflt) {
  std::string proj = cfg.string_or("feed_forward_proj", dflt);
  size_t dash = proj.find('-');
  if (dash == std::string::npos) return false;
  if (proj.substr(0, dash) != "gated" || proj.find('-', dash + 1) != std::string::npos ||
      dash + 1 == proj.size())
    cfg.fail("feed_forward_proj", "must be '{ACT}' or 'gated-{ACT}', found '" + proj + "'");
  return true;
}

void build_t5_family(const ModelConfig& cfg, ModelTemplate& t, const T5Family& f) {
  std::string cls = architecture_of(cfg, std::string(f.prefix) + "Model");
  std::string task =
      supported_task(cfg, cls, f.prefix, {"Model", "ForConditionalGeneration", "EncoderModel"});
  T5Dims d;
  d.d_model = cfg.dim_or("d_model", f.d_model);
  d.heads = cfg.dim_or("num_heads", f.heads);
  d.inner = d.heads * cfg.dim_or("d_kv", 64);
  d.d_ff = cfg.dim_or("d_ff", f.d_ff);
  d.buckets = cfg.dim_or("relative_attention_num_buckets", 32);
  d.gated = t5_gated(cfg, f.feed_forward_proj);
  d.bias_every_layer = f.bias_every_layer;
  const uint64_t enc_layers = cfg.layers_or("num_layers", f.layers, 0);
  const uint64_t dec_layers = cfg.layers_or("num_decoder_layers", enc_layers, 0);
  const uint64_t vocab = cfg.dim_or("vocab_size", f.vocab);

  // transformers 5 forces the tie_word_embeddings of T5, mT5 and UMT5 to true: the old `false` of T5 v1.1,
  // mT5 and UMT5 configs only meant "do not rescale decoder outputs", now scale_decoder_outputs. Embeddings
  // and lm_head always share `shared` (transformers 4 built mT5 with a head of its own: mt5-small 300,176,768
  // there, 172,119,424 here).
  t.arch.architecture = cls;
  t.arch.tie_word_embeddings = true;
  t.arch.vocab_size = vocab;
  blocks::embedding(t, "shared.weight", vocab, d.d_model);
  t.tie("encoder.embed_tokens.weight", "shared.weight");
  t5_stack(t, "encoder", enc_layers, d, false);
  const bool has_decoder = task != "EncoderModel";
  if (has_decoder) {
    t.tie("decoder.embed_tokens.weight", "shared.weight");
    t5_stack(t, "decoder", dec_layers, d, true);
  }
  if (task == "ForConditionalGeneration") {
    t.tie("lm_head.weight", "shared.weight");
    if (!cfg.flag_or("tie_word_embeddings", true))
      t.known_extras.push_back(
          {"lm_head.", std::string(f.prefix) +
                           " checkpoint stores an untied lm_head (T5 v1.1, mT5, UMT5); transformers 5 ties "
                           "it to shared.weight"});
  }

  StackDims main;
  main.layers = has_decoder ? dec_layers : enc_layers;
  main.layer.hidden = d.d_model;
  main.layer.heads = d.heads;
  main.layer.ffn = d.d_ff;
  describe_main(t, main, cfg.count_or("n_positions", 512));
  t.arch.head_dim = d.inner / d.heads;  // d_kv, independent of d_model
  StackDims encoder = main;
  encoder.layers = enc_layers;
  // Relative positions: the encoder attends its whole input, whatever its length.
  describe_stack(t, StackRole::Encoder, "encoder.block", encoder, t.arch.head_dim);
  if (has_decoder) describe_stack(t, StackRole::Decoder, "decoder.block", main, t.arch.head_dim);
}

}  // namespace

void build_t5(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kT5);
}
void build_mt5(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kMT5);
}
void build_umt5(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kUMT5);
}

}  // namespace ma::families
