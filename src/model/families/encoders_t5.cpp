// T5 and its descendants: T5, mT5, UMT5, LongT5 and Switch Transformers. Each block is [SelfAttention,
// (EncDecAttention), DenseReluDense] with RMS-style norms and relative position biases; the record's generic
// dimensions are the decoder's, or the encoder's for T5EncoderModel. LongT5's encoder attends locally (its
// attention module named so), or also to transient global tokens; Switch Transformers turns every
// sparse_step-th feed-forward into a mixture of experts, each token routed to one. Pop2Piano is T5 with a
// table of composer embeddings, one of which is prepended to the encoder's input (mel_conditioner).
#include "model/families/audio_gen_b.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/t5_parts.h"

namespace ma::families {

namespace {

// Switch Transformers: layer i of a stack is sparse when its step is positive and i % step == 1, or the step
// is 1 (every layer).
bool sparse_layer(uint64_t i, uint64_t step) {
  return step > 0 && (i % step == 1 || step == 1);
}

// The feed-forward's weights under `ff` (".DenseReluDense" or ".mlp"): T5's dense wi (or gated wi_0, wi_1)
// and wo, or a router and one ungated wi / wo pair per expert.
void t5_feed_forward(ModelTemplate& t, const std::string& ff, const T5Dims& d, bool sparse) {
  if (sparse) {
    blocks::linear(t, ff + ".router.classifier", d.d_model, d.experts, d.router_bias);
    for (uint64_t e = 0; e < d.experts; ++e) {
      const std::string x = ff + ".experts.expert_" + std::to_string(e);
      blocks::routed(t, x + ".wi.weight", {d.d_ff, d.d_model});
      blocks::routed(t, x + ".wo.weight", {d.d_model, d.d_ff});
    }
    return;
  }
  if (d.gated) {
    blocks::linear(t, ff + ".wi_0", d.d_model, d.d_ff, false);
    blocks::linear(t, ff + ".wi_1", d.d_model, d.d_ff, false);
  } else {
    blocks::linear(t, ff + ".wi", d.d_model, d.d_ff, false);
  }
  blocks::linear(t, ff + ".wo", d.d_ff, d.d_model, false);
}

}  // namespace

void t5_stack(ModelTemplate& t, const std::string& stack, uint64_t layers, const T5Dims& d, bool cross,
              uint64_t sparse_step) {
  blocks::Attention at;
  at.hidden = d.d_model;
  at.heads = at.kv_heads = d.heads;
  at.head_dim = d.inner / d.heads;
  at.q = "q", at.k = "k", at.v = "v", at.o = "o";
  const std::string self = cross ? "SelfAttention" : d.encoder_attention;
  for (uint64_t i = 0; i < layers; ++i) {
    std::string p = stack + ".block." + std::to_string(i) + ".layer.";
    blocks::attention(t, p + "0." + self, at);
    if (i == 0 || d.bias_every_layer)
      blocks::embedding(t, p + "0." + self + ".relative_attention_bias.weight", d.buckets, d.heads);
    if (!cross && d.transient_global) {
      if (i == 0)
        blocks::embedding(t, p + "0." + self + ".global_relative_attention_bias.weight", d.buckets, d.heads);
      blocks::norm(t, p + "0." + self + ".global_input_layer_norm", d.d_model, false);
    }
    blocks::norm(t, p + "0.layer_norm", d.d_model, false);
    if (cross) {
      blocks::attention(t, p + "1.EncDecAttention", at);
      blocks::norm(t, p + "1.layer_norm", d.d_model, false);
    }
    std::string ff = p + (cross ? "2" : "1");
    t5_feed_forward(t, ff + "." + d.feed_forward, d, d.experts && sparse_layer(i, sparse_step));
    blocks::norm(t, ff + ".layer_norm", d.d_model, false);
  }
  blocks::norm(t, stack + ".final_layer_norm", d.d_model, false);
}

namespace {

// T5Config's defaults, and MT5Config's and UMT5Config's: mT5 is T5's code (gated-GELU, d_kv x heads below
// d_model) with other sizes; UMT5 mT5's sizes with a position bias in every self-attention.
struct T5Family {
  std::string_view prefix;  // class prefix: "T5", "MT5", "UMT5"
  uint64_t vocab, d_model, d_ff, layers, heads;
  std::string_view feed_forward_proj;
  bool bias_every_layer = false;
  // transformers 5 ties T5's, mT5's and UMT5's embeddings whatever the config says (below); LongT5 and
  // Switch Transformers follow tie_word_embeddings, all four tables or none.
  bool forced_tie = true;
  bool long_attention = false;      // LongT5: encoder_attention_type
  bool switch_experts = false;      // Switch Transformers
  bool composer_embedding = false;  // Pop2Piano: mel_conditioner's composer_vocab_size x d_model table
};
constexpr T5Family kT5{"T5", 32128, 512, 2048, 6, 8, "relu"};
constexpr T5Family kMT5{"MT5", 250112, 512, 1024, 8, 6, "gated-gelu"};
constexpr T5Family kUMT5{"UMT5", 250112, 512, 1024, 8, 6, "gated-gelu", true};
constexpr T5Family kLongT5{"LongT5", 32128, 512, 2048, 6, 8, "relu", false, false, true};
constexpr T5Family kSwitch{"SwitchTransformers", 32128, 768, 2048, 12, 12, "relu", false, false, false, true};
// Pop2PianoConfig's defaults are sweetcocoa/pop2piano's; it follows tie_word_embeddings like LongT5.
constexpr T5Family kPop2Piano{"Pop2Piano",  2400,  512,   2048,  6,     8,
                              "gated-gelu", false, false, false, false, true};

// A Switch stack's sparse step: `side`_sparse_step as stored, else layers / num_sparse_`side`_layers (the
// config class derives it so; 0 sparse layers give a step of the whole depth).
uint64_t sparse_step(const ModelConfig& cfg, const std::string& side, uint64_t layers) {
  if (cfg.has(side + "_sparse_step")) return cfg.count_or(side + "_sparse_step", 0);
  const uint64_t sparse = cfg.count_or("num_sparse_" + side + "_layers", 3);
  return sparse ? layers / sparse : layers;
}

// The Switch stack's record: its sparse layers route each token to one of `experts` ungated experts.
void route_sparse_layers(StackSpec& s, const T5Dims& d, uint64_t step) {
  for (uint64_t i = 0; i < s.layers.size(); ++i) {
    if (!sparse_layer(i, step)) continue;
    FfnShape& f = s.layers[i].ffn;
    f.kind = Ffn::Moe;
    f.gated = false;
    f.experts = d.experts;
    f.top_k = 1;
    f.expert_intermediate = d.d_ff;
    f.expert_matrices = 2;
  }
}

}  // namespace

bool t5_gated(const ModelConfig& cfg, std::string_view dflt, bool validated) {
  std::string proj = cfg.string_or("feed_forward_proj", dflt);
  if (!validated) return proj.substr(0, proj.find('-')) == "gated";
  size_t dash = proj.find('-');
  if (dash == std::string::npos) return false;
  if (proj.substr(0, dash) != "gated" || proj.find('-', dash + 1) != std::string::npos ||
      dash + 1 == proj.size())
    cfg.fail("feed_forward_proj", "must be '{ACT}' or 'gated-{ACT}', found '" + proj + "'");
  return true;
}

namespace {

// `generation`: the class AutoModelForSeq2SeqLM builds (a nested text_config names none), whatever the
// config names.
void build_t5_family(const ModelConfig& cfg, ModelTemplate& t, const T5Family& f, bool generation = false) {
  std::string cls = generation ? std::string(f.prefix) + "ForConditionalGeneration"
                               : architecture_of(cfg, std::string(f.prefix) + "Model");
  std::string task =
      supported_task(cfg, cls, f.prefix, {"Model", "ForConditionalGeneration", "EncoderModel"});
  T5Dims d;
  d.d_model = cfg.dim_or("d_model", f.d_model);
  d.heads = cfg.dim_or("num_heads", f.heads);
  d.inner = d.heads * cfg.dim_or("d_kv", 64);
  d.d_ff = cfg.dim_or("d_ff", f.d_ff);
  d.buckets = cfg.dim_or("relative_attention_num_buckets", 32);
  d.gated = t5_gated(cfg, f.feed_forward_proj, !f.composer_embedding);
  d.bias_every_layer = f.bias_every_layer;
  const uint64_t enc_layers = cfg.layers_or("num_layers", f.layers, 0);
  const uint64_t dec_layers = cfg.layers_or("num_decoder_layers", enc_layers, 0);
  const uint64_t vocab = cfg.dim_or("vocab_size", f.vocab);
  if (f.long_attention) {
    const std::string type = cfg.string_or("encoder_attention_type", "local");
    if (type != "local" && type != "transient-global")
      cfg.fail("encoder_attention_type", "must be local or transient-global");
    d.transient_global = type == "transient-global";
    d.encoder_attention = d.transient_global ? "TransientGlobalSelfAttention" : "LocalSelfAttention";
  }
  uint64_t encoder_step = 0, decoder_step = 0;
  if (f.switch_experts) {
    d.feed_forward = "mlp";
    d.gated = false;  // the class has no gated feed-forward, whatever a config's is_gated_act says
    d.experts = cfg.dim_or("num_experts", 8);
    d.router_bias = cfg.flag_or("router_bias", false);
    encoder_step = sparse_step(cfg, "encoder", enc_layers);
    decoder_step = sparse_step(cfg, "decoder", dec_layers);
  }

  // transformers 5 forces the tie_word_embeddings of T5, mT5 and UMT5 to true: the old `false` of T5 v1.1,
  // mT5 and UMT5 configs only meant "do not rescale decoder outputs", now scale_decoder_outputs. Embeddings
  // and lm_head always share `shared` (transformers 4 built mT5 with a head of its own: mt5-small 300,176,768
  // there, 172,119,424 here).
  t.arch.architecture = cls;
  const bool tied = f.forced_tie || cfg.flag_or("tie_word_embeddings", true);
  t.arch.tie_word_embeddings = tied;
  t.arch.vocab_size = vocab;
  blocks::embedding(t, "shared.weight", vocab, d.d_model);
  if (f.composer_embedding)
    blocks::embedding(t, "mel_conditioner.embedding.weight", cfg.dim_or("composer_vocab_size", 21),
                      d.d_model);
  tied_or_own(t, "encoder.embed_tokens.weight", "shared.weight", tied).embedding = true;
  t5_stack(t, "encoder", enc_layers, d, false, encoder_step);
  const bool has_decoder = task != "EncoderModel";
  if (has_decoder) {
    tied_or_own(t, "decoder.embed_tokens.weight", "shared.weight", tied).embedding = true;
    t5_stack(t, "decoder", dec_layers, d, true, decoder_step);
  }
  if (task == "ForConditionalGeneration") {
    tied_or_own(t, "lm_head.weight", "shared.weight", tied);
    if (f.forced_tie && !cfg.flag_or("tie_word_embeddings", true))
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
  if (d.experts) route_sparse_layers(t.arch.stacks.back(), d, encoder_step);
  if (has_decoder) describe_stack(t, StackRole::Decoder, "decoder.block", main, t.arch.head_dim);
  if (has_decoder && d.experts) route_sparse_layers(t.arch.stacks.back(), d, decoder_step);
  if (d.experts) {
    t.arch.num_experts = d.experts;
    t.arch.experts_per_token = 1;
    t.arch.moe_intermediate_size = d.d_ff;
  }
}

}  // namespace

void build_t5(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kT5);
}
void build_t5_for_generation(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kT5, true);
}
void build_mt5(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kMT5);
}
void build_umt5(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kUMT5);
}
void build_longt5(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kLongT5);
}
void build_switch_transformers(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kSwitch);
}
void build_pop2piano(const ModelConfig& cfg, ModelTemplate& t) {
  build_t5_family(cfg, t, kPop2Piano, true);  // Pop2PianoForConditionalGeneration is its only model class
}

}  // namespace ma::families
