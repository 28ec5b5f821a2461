// BART (and mBART, Pegasus, Marian, M2M100, Blenderbot) and Whisper: an encoder stack and a decoder stack
// with cross-attention (T5 and its descendants: encoders_t5.cpp). The record holds both stacks; the record's
// generic dimensions are the decoder's (the stack that runs per generated token), or the encoder's for
// encoder-only classes such as T5EncoderModel.
#include "model/families/encoders_seq2seq.h"

#include <optional>
#include <string_view>
#include <vector>

#include "core/checked.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"

namespace ma::families {

StackDims read_stack(const ModelConfig& cfg, const std::string& side, uint64_t hidden, uint64_t dflt_layers,
                     uint64_t dflt_heads, uint64_t dflt_ffn) {
  StackDims s;
  s.layers = cfg.layers_or(side + "_layers", dflt_layers, 0);
  s.layer.hidden = hidden;
  s.layer.heads = cfg.dim_or(side + "_attention_heads", dflt_heads);
  s.layer.ffn = cfg.dim_or(side + "_ffn_dim", dflt_ffn);
  split_heads(cfg, side + "_attention_heads", hidden, s.layer.heads);
  return s;
}

namespace {

// BART and Whisper share the layer layout: self_attn (+ encoder_attn), fc1/fc2, three LayerNorms. LED's
// encoder layers attend as Longformer does: query, key and value for the sliding window and three more for
// the global tokens, the output named output.
void bart_style_layers(ModelTemplate& t, const std::string& stack, const StackDims& s, bool cross,
                       bool longformer = false) {
  LayerNames n = bart_layer_names(cross);
  if (longformer) {
    n.q = "self_attn.longformer_self_attn.query";
    n.k = "self_attn.longformer_self_attn.key";
    n.v = "self_attn.longformer_self_attn.value";
    n.o = "self_attn.output";
    n.key_first = false;
  }
  for (uint64_t i = 0; i < s.layers; ++i) {
    const std::string layer = stack + ".layers." + std::to_string(i);
    const size_t first = t.tensors.size();
    transformer_layer(t, layer, n, s.layer);
    if (longformer)
      longformer_global_projections(t, first, layer + ".self_attn.longformer_self_attn.", s.layer.hidden);
  }
}

}  // namespace

LayerNames bart_layer_names(bool cross) {
  LayerNames n;
  n.q = "self_attn.q_proj";
  n.k = "self_attn.k_proj";
  n.v = "self_attn.v_proj";
  n.o = "self_attn.out_proj";
  n.key_first = true;
  n.attn_norm = "self_attn_layer_norm";
  if (cross) {
    n.cross_q = "encoder_attn.q_proj";
    n.cross_k = "encoder_attn.k_proj";
    n.cross_v = "encoder_attn.v_proj";
    n.cross_o = "encoder_attn.out_proj";
    n.cross_norm = "encoder_attn_layer_norm";
  }
  n.fc1 = "fc1";
  n.fc2 = "fc2";
  n.ffn_norm = "final_layer_norm";
  return n;
}

void describe_stack(ModelTemplate& t, StackRole role, const std::string& path, const StackDims& dims,
                    uint64_t head_dim, uint64_t positions) {
  StackSpec& s = t.arch.add_stack(role, path, dims.layer.hidden);
  s.positions = positions;
  LayerSpec l = attention_dense_layer();
  l.attention.heads = l.attention.kv_heads = dims.layer.heads;
  l.attention.head_dim = head_dim;
  l.ffn.intermediate = dims.layer.ffn;
  if (role == StackRole::Decoder) l.cross_attention = l.attention;
  s.layers.assign(dims.layers, l);
}

void describe_main(ModelTemplate& t, const StackDims& dec, uint64_t max_positions) {
  ArchitectureRecord& a = t.arch;
  a.hidden_size = dec.layer.hidden;
  a.num_layers = dec.layers;
  a.num_attention_heads = a.num_key_value_heads = dec.layer.heads;
  a.head_dim = dec.layer.hidden / dec.layer.heads;
  a.intermediate_size = dec.layer.ffn;
  a.max_position_embeddings = max_positions;
}

namespace {

// What sets BART's descendants apart. Their layers are BART's; the stacks differ in the norms around them, in
// how positions are embedded and in the vocabularies they embed.
// How a stack embeds positions: BART's learned table with two extra rows (its offset of 2), or Blenderbot's
// of exactly max_position_embeddings rows; a fixed
// sinusoidal table of exactly max_position_embeddings rows, an nn.Parameter that num_parameters counts and
// transformers fills in on load, so checkpoints may leave it out (Pegasus, Marian); or a sinusoidal table
// computed as a buffer that is never saved (M2M100, NLLB).
enum class BartPositions : uint8_t { Learned, LearnedNoOffset, SinusoidalParameter, SinusoidalBuffer };
// PEGASUS-X computes its sinusoidal positions on the fly: no table at all, like SinusoidalBuffer's.

struct BartFamily {
  std::string_view prefix;  // class prefix: "Bart", "MBart", "Pegasus", "Marian", "M2M100", "Blenderbot", ...
  uint64_t vocab = 50265;   // the config class's default vocab_size
  bool layernorm_embedding = true;  // a LayerNorm right after the embeddings (not Pegasus, Marian, M2M100)
  bool final_layer_norm = false;    // a LayerNorm after each stack's last layer (mBART, Pegasus, M2M100)
  BartPositions positions = BartPositions::Learned;
  bool post_norm = false;             // BART's normalize_before = false
  bool classification_heads = false;  // ForSequenceClassification (BART, mBART, PLBart)
  // Marian: share_encoder_decoder_embeddings false gives the decoder its own vocabulary (decoder_vocab_size),
  // embedding and head; the generation class is MarianMTModel.
  bool separate_decoder_vocab = false;
  bool final_logits_bias = true;    // the generation class's buffer (not M2M100's)
  bool question_answering = false;  // a QA class (BART, mBART, LED)
  bool causal_lm = true;            // the decoder alone (not LED)
  // LED: the base model under led. in the task classes, a Longformer encoder, each stack learning its own
  // number of positions (max_encoder_position_embeddings, max_decoder_position_embeddings) without offset.
  bool led = false;
  // PEGASUS-X: attention without biases, and an encoder that also attends num_global_tokens learned global
  // tokens (embed_global) through its layers' projections, normed apart (global_self_attn_layer_norm).
  bool global_tokens = false;
  // MVP: with use_prompt, the decoder learns a prompt for its self- and its cross-attention (MvpPrompt):
  // prompt_length embeddings, each mapped through an MLP to a key and a value for every layer.
  bool prompts = false;
  // The config class's defaults for the stacks' sizes (BART-large's).
  uint64_t d_model = 1024, layers = 12, heads = 16, ffn = 4096;
};

constexpr BartFamily kBart{
    .prefix = "Bart", .post_norm = true, .classification_heads = true, .question_answering = true};
constexpr BartFamily kMBart{
    .prefix = "MBart", .final_layer_norm = true, .classification_heads = true, .question_answering = true};
constexpr BartFamily kPegasus{.prefix = "Pegasus",
                              .layernorm_embedding = false,
                              .final_layer_norm = true,
                              .positions = BartPositions::SinusoidalParameter};
constexpr BartFamily kMarian{.prefix = "Marian",
                             .vocab = 58101,
                             .layernorm_embedding = false,
                             .positions = BartPositions::SinusoidalParameter,
                             .post_norm = true,
                             .separate_decoder_vocab = true};
// M2M100 (NLLB-200's dense models): mBART's pre-norm stacks with their final norms, positions computed.
constexpr BartFamily kM2M100{.prefix = "M2M100",
                             .vocab = 128112,
                             .layernorm_embedding = false,
                             .final_layer_norm = true,
                             .positions = BartPositions::SinusoidalBuffer,
                             .final_logits_bias = false};
// Blenderbot: mBART's pre-norm stacks and final norms without layernorm_embedding; BlenderbotSmall: BART's
// post-norm with it. Both learn exactly max_position_embeddings positions.
constexpr BartFamily kBlenderbot{.prefix = "Blenderbot",
                                 .vocab = 8008,
                                 .layernorm_embedding = false,
                                 .final_layer_norm = true,
                                 .positions = BartPositions::LearnedNoOffset};
constexpr BartFamily kBlenderbotSmall{
    .prefix = "BlenderbotSmall", .positions = BartPositions::LearnedNoOffset, .post_norm = true};
constexpr BartFamily kPegasusX{.prefix = "PegasusX",
                               .vocab = 96103,
                               .layernorm_embedding = false,
                               .final_layer_norm = true,
                               .positions = BartPositions::SinusoidalBuffer,
                               .final_logits_bias = false,
                               .causal_lm = false,
                               .global_tokens = true,
                               .layers = 16};
constexpr BartFamily kLed{.prefix = "LED",
                          .positions = BartPositions::LearnedNoOffset,
                          .post_norm = true,
                          .question_answering = true,
                          .causal_lm = false,
                          .led = true};
// PLBart (code summarisation and generation): BART's layout, its config class defaulting to PLBart-base.
constexpr BartFamily kPLBart{.prefix = "PLBart",
                             .vocab = 50005,
                             .post_norm = true,
                             .classification_heads = true,
                             .d_model = 768,
                             .layers = 6,
                             .heads = 12,
                             .ffn = 3072};

// MVP (RUCAIBox/mvp and its task variants): BART-large's layout, two more tokens in its vocabulary.
constexpr BartFamily kMvp{.prefix = "Mvp",
                          .vocab = 50267,
                          .post_norm = true,
                          .classification_heads = true,
                          .question_answering = true,
                          .prompts = true};

// The stacks of one BART-family model as its config sizes them.
struct BartStacks {
  const BartFamily& f;
  uint64_t d, vocab, decoder_vocab, max_pos, decoder_max_pos, global_tokens;
  StackDims enc, dec;
  bool share, tied;

  BartStacks(const ModelConfig& cfg, ModelTemplate& t, const BartFamily& family)
      : f(family),
        d(cfg.dim_or("d_model", family.d_model)),
        vocab(cfg.dim_or("vocab_size", family.vocab)),
        max_pos(family.led ? cfg.dim_or("max_encoder_position_embeddings", 16384)
                           : cfg.dim_or("max_position_embeddings", 1024)),
        decoder_max_pos(family.led ? cfg.dim_or("max_decoder_position_embeddings", 1024) : max_pos),
        global_tokens(family.global_tokens ? cfg.dim_or("num_global_tokens", 32) : 0),
        enc(read_stack(cfg, "encoder", d, family.layers, family.heads, family.ffn)),
        dec(read_stack(cfg, "decoder", d, family.layers, family.heads, family.ffn)) {
    share = !f.separate_decoder_vocab || cfg.flag_or("share_encoder_decoder_embeddings", true);
    decoder_vocab = share ? vocab : cfg.dim_or("decoder_vocab_size", vocab);
    tied = read_tie(cfg, t);
    t.arch.post_norm = f.post_norm;
    if (f.positions == BartPositions::SinusoidalParameter || f.positions == BartPositions::SinusoidalBuffer)
      t.arch.position = PositionKind::Sinusoidal;
    t.arch.vocab_size = decoder_vocab;
    describe_main(t, dec, max_pos);
  }

  // `words`: the shared embedding the stack's embed_tokens is (tied) or copies; empty: its own of `rows`.
  void stack(ModelTemplate& t, const std::string& stack, const StackDims& dims, bool cross,
             const std::string& words, uint64_t rows) const {
    if (words.empty())
      blocks::embedding(t, stack + ".embed_tokens.weight", rows, d);
    else
      tied_or_own(t, stack + ".embed_tokens.weight", words, tied).embedding = true;
    const uint64_t positions = cross ? decoder_max_pos : max_pos;
    if (f.positions == BartPositions::SinusoidalParameter)
      blocks::embedding(t, stack + ".embed_positions.weight", positions, d).rebuilt_on_load = true;
    else if (f.positions == BartPositions::Learned)
      blocks::embedding(t, stack + ".embed_positions.weight", positions + 2, d);
    else if (f.positions == BartPositions::LearnedNoOffset)
      blocks::embedding(t, stack + ".embed_positions.weight", positions, d);
    if (f.global_tokens && !cross) blocks::embedding(t, stack + ".embed_global.weight", global_tokens, d);
    StackDims layers = dims;
    layers.layer.qkv_bias = layers.layer.o_bias = !f.global_tokens;
    bart_style_layers(t, stack, layers, cross, f.led && !cross);
    if (f.global_tokens && !cross)
      for (uint64_t i = 0; i < dims.layers; ++i)
        blocks::norm(t, stack + ".layers." + std::to_string(i) + ".global_self_attn_layer_norm", d, true);
    if (f.layernorm_embedding) blocks::norm(t, stack + ".layernorm_embedding", d, true);
    if (f.final_layer_norm) blocks::norm(t, stack + ".layer_norm", d, true);
  }

  // The shared embedding and both stacks under `prefix` ("model.", "" for the bare model), recorded; returns
  // the shared embedding's name, "" when the two stacks embed apart.
  std::string encoder_decoder(ModelTemplate& t, const std::string& prefix) const {
    const std::string shared = share ? prefix + "shared.weight" : "";
    if (share) blocks::embedding(t, shared, vocab, d);
    stack(t, prefix + "encoder", enc, false, shared, vocab);
    stack(t, prefix + "decoder", dec, true, shared, decoder_vocab);
    describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", enc, t.arch.head_dim, max_pos);
    describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", dec, t.arch.head_dim);
    return shared;
  }
};

// MVP's prompts (MvpPrompt), after the decoder's layers and norms: for each layer a key and a value of d
// per prompt token come out of prompt_trans (Linear, GELU, Linear). The encoder's prompt, which the task
// checkpoints store, transformers no longer builds: since its weight-loading rework MvpModel passes
// use_prompt where MvpEncoder takes its embeddings, so the encoder is built without it.
void mvp_prompts(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix, const BartStacks& s) {
  const uint64_t length = cfg.dim_or("prompt_length", 100), mid = cfg.dim_or("prompt_mid_dim", 800);
  const std::optional<uint64_t> keys_values = checked_mul(2 * s.dec.layers, s.d);  // each at most 2^26
  if (!keys_values) cfg.fail("decoder_layers", "times d_model overflows 64-bit arithmetic");
  for (const char* which : {"self_attn_prompt", "cross_attn_prompt"}) {
    const std::string p = prefix + "decoder." + which + ".";
    blocks::embedding(t, p + "prompt_embedding.weight", length, s.d);
    blocks::linear(t, p + "prompt_trans.0", s.d, mid, true);
    blocks::linear(t, p + "prompt_trans.2", mid, *keys_values, true);
  }
  t.known_extras.push_back({prefix + "encoder.self_attn_prompt.",
                            "MVP's encoder prompt: transformers builds none and drops it on load"});
}

void build_bart_family(const ModelConfig& cfg, ModelTemplate& t, const BartFamily& f) {
  const std::string cls = architecture_of(cfg, std::string(f.prefix) + "Model");
  std::vector<std::string_view> tasks = {"Model",
                                         f.separate_decoder_vocab ? "MTModel" : "ForConditionalGeneration"};
  if (f.classification_heads) tasks.push_back("ForSequenceClassification");
  if (f.question_answering) tasks.push_back("ForQuestionAnswering");
  if (f.causal_lm) tasks.push_back("ForCausalLM");
  const std::string task = supported_task(cfg, cls, f.prefix, tasks);
  const bool generation = task == "ForConditionalGeneration" || task == "MTModel";
  t.arch.architecture = cls;
  const BartStacks s(cfg, t, f);
  if (task == "ForCausalLM") {
    // The decoder alone (its layers keep their encoder_attn, which nothing feeds), its own word embeddings
    // and a head tied to them.
    s.stack(t, "model.decoder", s.dec, true, "", s.decoder_vocab);
    describe_stack(t, StackRole::Decoder, "model.decoder.layers", s.dec, t.arch.head_dim);
    for (LayerSpec& l : t.arch.stacks.back().layers) l.cross_attention.reset();
    tied_or_own(t, "lm_head.weight", "model.decoder.embed_tokens.weight", s.tied);
    return;
  }
  const std::string prefix = task == "Model" ? "" : f.led ? "led." : "model.";
  if (generation && f.final_logits_bias)
    t.add("final_logits_bias", {1, s.decoder_vocab}).kind = TensorKind::Buffer;
  const std::string shared = s.encoder_decoder(t, prefix);
  if (f.prompts && cfg.flag_or("use_prompt", false)) mvp_prompts(cfg, t, prefix, s);
  if (generation) {
    tied_or_own(t, "lm_head.weight", s.share ? shared : prefix + "decoder.embed_tokens.weight", s.tied);
  } else if (task == "ForSequenceClassification") {
    blocks::linear(t, "classification_head.dense", s.d, s.d, true);
    blocks::linear(t, "classification_head.out_proj", s.d, num_labels(cfg), true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", s.d, 2, true);
  }
}

}  // namespace

void build_bart(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kBart);
}

std::string bart_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix) {
  return BartStacks(cfg, t, kBart).encoder_decoder(t, prefix);
}
void build_mbart(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kMBart);
}
void build_pegasus(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kPegasus);
}
void build_marian(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kMarian);
}
void build_m2m_100(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kM2M100);
}
void build_blenderbot(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kBlenderbot);
}
void build_blenderbot_small(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kBlenderbotSmall);
}
void build_pegasus_x(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kPegasusX);
}
void build_led(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kLed);
}
void build_plbart(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kPLBart);
}
void build_mvp(const ModelConfig& cfg, ModelTemplate& t) {
  build_bart_family(cfg, t, kMvp);
}

namespace {

// The tensors of Whisper's audio encoder under `encoder`.
void audio_encoder_tensors(ModelTemplate& t, const std::string& encoder, const StackDims& enc, uint64_t mels,
                           uint64_t positions) {
  const uint64_t d = enc.layer.hidden;
  t.add(encoder + ".conv1.weight", {d, mels, 3});
  t.add(encoder + ".conv1.bias", {d});
  t.add(encoder + ".conv2.weight", {d, d, 3});
  t.add(encoder + ".conv2.bias", {d});
  blocks::embedding(t, encoder + ".embed_positions.weight", positions, d);
  bart_style_layers(t, encoder, enc, false);
  blocks::norm(t, encoder + ".layer_norm", d, true);
}

// The sizes of the Qwen audio encoders, whose config classes alias the transformers names (hidden_size,
// num_hidden_layers, ...) to Whisper's (d_model, encoder_layers, ...): the transformers name where the
// config spells it, else Whisper's; `dflt` holds the class's defaults.
StackDims qwen_audio_stack(const ModelConfig& cfg, const StackDims& dflt) {
  const auto key = [&](std::string_view name, std::string_view whisper) {
    return cfg.has(name) ? name : whisper;
  };
  StackDims enc;
  const uint64_t d = cfg.dim_or(key("hidden_size", "d_model"), dflt.layer.hidden);
  enc.layers = cfg.layers_or(key("num_hidden_layers", "encoder_layers"), dflt.layers, 0);
  enc.layer.hidden = d;
  const std::string_view heads = key("num_attention_heads", "encoder_attention_heads");
  enc.layer.heads = cfg.dim_or(heads, dflt.layer.heads);
  enc.layer.ffn = cfg.dim_or(key("intermediate_size", "encoder_ffn_dim"), dflt.layer.ffn);
  split_heads(cfg, std::string(heads), d, enc.layer.heads);
  return enc;
}

}  // namespace

void whisper_audio_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix,
                           StackRole role, const AudioEncoderDefaults& dflt) {
  // The key a size is read from: the transformers name where the config spells it so, else Whisper's.
  const auto key = [&](std::string_view name, std::string_view whisper) {
    return dflt.transformers_names && (cfg.has(name) || !cfg.has(whisper)) ? name : whisper;
  };
  const uint64_t d = cfg.dim_or(key("hidden_size", "d_model"), dflt.d_model);
  StackDims enc;
  enc.layers = cfg.layers_or(key("num_hidden_layers", "encoder_layers"), dflt.layers, 0);
  enc.layer.hidden = d;
  const std::string_view heads = key("num_attention_heads", "encoder_attention_heads");
  enc.layer.heads = cfg.dim_or(heads, dflt.heads);
  enc.layer.ffn = cfg.dim_or(key("intermediate_size", "encoder_ffn_dim"), dflt.ffn);
  split_heads(cfg, std::string(heads), d, enc.layer.heads);
  enc.layer.k_bias = false;
  const uint64_t mels = cfg.dim_or("num_mel_bins", dflt.mel_bins);
  const uint64_t positions = cfg.dim_or("max_source_positions", dflt.positions);
  audio_encoder_tensors(t, prefix, enc, mels, positions);
  describe_stack(t, role, prefix + ".layers", enc, d / enc.layer.heads, positions);
  t.arch.stack(role)->mel_bins = mels;
}

uint64_t qwen3_asr_audio_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix,
                                 const AutDefaults& dflt) {
  const StackDims enc =
      qwen_audio_stack(cfg, {dflt.layers, {.hidden = dflt.d_model, .heads = dflt.heads, .ffn = dflt.ffn}});
  const uint64_t d = enc.layer.hidden;
  const uint64_t channels = cfg.dim_or("downsample_hidden_size", 480), mels = cfg.dim_or("num_mel_bins", 128);
  const uint64_t left = ((mels + 1) / 2 + 1) / 2;  // after two of the three stride-2 convolutions
  t.add(prefix + ".conv2d1.weight", {channels, 1, 3, 3});
  t.add(prefix + ".conv2d1.bias", {channels});
  for (const char* conv : {".conv2d2", ".conv2d3"}) {
    t.add(prefix + conv + ".weight", {channels, channels, 3, 3});
    t.add(prefix + conv + ".bias", {channels});
  }
  blocks::linear(t, prefix + ".conv_out", channels * ((left + 1) / 2), d, false);
  bart_style_layers(t, prefix, enc, false);
  blocks::norm(t, prefix + ".ln_post", d, true);
  describe_stack(t, StackRole::Audio, prefix + ".layers", enc, d / enc.layer.heads, 0);
  t.arch.stack(StackRole::Audio)->mel_bins = mels;
  if (!dflt.projections) return d;
  const uint64_t out = cfg.dim_or("output_dim", dflt.output_dim);
  blocks::linear(t, prefix + ".proj1", d, d, true);
  blocks::linear(t, prefix + ".proj2", d, out, true);
  return out;
}

uint64_t qwen2_5_omni_audio_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& prefix) {
  StackDims enc = qwen_audio_stack(cfg, {32, {.hidden = 1280, .heads = 20, .ffn = 5120}});
  enc.layer.k_bias = false;
  const uint64_t d = enc.layer.hidden, mels = cfg.dim_or("num_mel_bins", 128);
  const uint64_t out = cfg.dim_or("output_dim", 3584);
  t.add(prefix + ".conv1.weight", {d, mels, 3});
  t.add(prefix + ".conv1.bias", {d});
  t.add(prefix + ".conv2.weight", {d, d, 3});
  t.add(prefix + ".conv2.bias", {d});
  // An nn.Embedding of two rows in the output width: built and stored, though the forward pass never reads
  // it. The positions are a sinusoid buffer transformers does not save.
  blocks::embedding(t, prefix + ".audio_bos_eos_token.weight", 2, out);
  bart_style_layers(t, prefix, enc, false);
  blocks::norm(t, prefix + ".ln_post", d, true);
  blocks::linear(t, prefix + ".proj", d, out, true);
  // Each chunk of 2 x n_window mel frames is encoded apart, its positions restarting, as in Qwen3-ASR's.
  describe_stack(t, StackRole::Audio, prefix + ".layers", enc, d / enc.layer.heads, 0);
  t.arch.stack(StackRole::Audio)->mel_bins = mels;
  return out;
}

void build_whisper(const ModelConfig& cfg, ModelTemplate& t) {
  std::string cls = architecture_of(cfg, "WhisperModel");
  std::string task = supported_task(cfg, cls, "Whisper", {"Model", "ForConditionalGeneration"});
  t.arch.architecture = cls;
  const uint64_t d = cfg.dim_or("d_model", 384), vocab = cfg.dim_or("vocab_size", 51865);
  const uint64_t mels = cfg.dim_or("num_mel_bins", 80);
  const uint64_t src_pos = cfg.dim_or("max_source_positions", 1500),
                 tgt_pos = cfg.dim_or("max_target_positions", 448);
  StackDims enc = read_stack(cfg, "encoder", d, 4, 6, 1536), dec = read_stack(cfg, "decoder", d, 4, 6, 1536);
  enc.layer.k_bias = dec.layer.k_bias = false;
  t.arch.vocab_size = vocab;

  std::string prefix = task == "Model" ? "" : "model.";
  std::string encoder = prefix + "encoder", decoder = prefix + "decoder";
  audio_encoder_tensors(t, encoder, enc, mels, src_pos);
  blocks::embedding(t, decoder + ".embed_tokens.weight", vocab, d);
  blocks::embedding(t, decoder + ".embed_positions.weight", tgt_pos, d);
  bart_style_layers(t, decoder, dec, true);
  blocks::norm(t, decoder + ".layer_norm", d, true);
  describe_main(t, dec, tgt_pos);
  describe_stack(t, StackRole::Encoder, encoder + ".layers", enc, t.arch.head_dim, src_pos);
  describe_stack(t, StackRole::Decoder, decoder + ".layers", dec, t.arch.head_dim);
  t.arch.stack(StackRole::Encoder)->mel_bins = mels;
  const bool tied = read_tie(cfg, t);
  if (task == "ForConditionalGeneration")
    tied_or_own(t, "proj_out.weight", decoder + ".embed_tokens.weight", tied);
}

}  // namespace ma::families
