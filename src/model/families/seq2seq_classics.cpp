// Older encoder-decoder families and Reformer: NLLB-MoE (M2M100's stacks with a mixture of experts every
// few layers), BigBird-Pegasus (Pegasus with a block-sparse encoder), FSMT (fairseq's WMT19 translators with
// separate source and target vocabularies), Speech2Text (a convolutional subsampler before a transformer
// encoder-decoder), ProphetNet (a decoder that predicts n future tokens in n extra streams) and Reformer
// (reversible layers of LSH or chunked local attention with axial positions). Each template is what the
// transformers class builds, tensors in registration order; the record holds every stack.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/family_groups.h"

namespace ma::families {

namespace {

// The attention of BART's lineage registers its projections key, value, query, output: that order is the
// state_dict's.
void kvq_attention(ModelTemplate& t, const std::string& prefix, uint64_t d, bool bias) {
  for (const char* proj : {".k_proj", ".v_proj", ".q_proj", ".out_proj"})
    blocks::linear(t, prefix + proj, d, d, bias);
}

// One BART-lineage layer (FSMT, Speech2Text, BigBird-Pegasus' decoder): self_attn and its norm, the
// cross-attention `cross` ("encoder_attn"; empty: none) and its norm, fc1, fc2 and final_layer_norm.
void bart_lineage_layer(ModelTemplate& t, const std::string& layer, uint64_t d, uint64_t ffn,
                        const std::string& cross, bool attention_bias = true) {
  kvq_attention(t, layer + ".self_attn", d, attention_bias);
  blocks::norm(t, layer + ".self_attn_layer_norm", d, true);
  if (!cross.empty()) {
    kvq_attention(t, layer + "." + cross, d, attention_bias);
    blocks::norm(t, layer + "." + cross + "_layer_norm", d, true);
  }
  blocks::linear(t, layer + ".fc1", d, ffn, true);
  blocks::linear(t, layer + ".fc2", ffn, d, true);
  blocks::norm(t, layer + ".final_layer_norm", d, true);
}

std::string layer_name(const std::string& stack, uint64_t i) {
  return stack + ".layers." + std::to_string(i);
}

// ---- NLLB-MoE ----

// NllbMoeConfig's defaults are NLLB-MoE-54B's layout at a twelfth of its depth: 12 + 12 layers, 128 experts,
// every 4th layer sparse.
struct NllbMoeDims {
  uint64_t d = 0, vocab = 0, positions = 0, experts = 0;
  StackDims enc, dec;
  uint64_t encoder_step = 0, decoder_step = 0;
  bool router_bias = false;
};

// Layer i of a stack is sparse when the step is positive and (i + 1) % step == 0: with step 4, layers 3, 7,
// ...
bool nllb_sparse(uint64_t i, uint64_t step) {
  return step > 0 && (i + 1) % step == 0;
}

// One NLLB-MoE layer: self_attn, (cross_attention), then under ffn either fc1 / fc2 or the top-2 router's
// classifier and one ungated fc1 / fc2 pair (with biases) per expert, and ff_layer_norm.
void nllb_moe_layer(ModelTemplate& t, const std::string& layer, const NllbMoeDims& n, uint64_t ffn,
                    bool cross, bool sparse) {
  kvq_attention(t, layer + ".self_attn", n.d, true);
  blocks::norm(t, layer + ".self_attn_layer_norm", n.d, true);
  if (cross) {
    kvq_attention(t, layer + ".cross_attention", n.d, true);
    blocks::norm(t, layer + ".cross_attention_layer_norm", n.d, true);
  }
  if (sparse) {
    blocks::linear(t, layer + ".ffn.router.classifier", n.d, n.experts, n.router_bias);
    for (uint64_t e = 0; e < n.experts; ++e) {
      const std::string x = layer + ".ffn.experts.expert_" + std::to_string(e);
      blocks::routed(t, x + ".fc1.weight", {ffn, n.d});
      blocks::routed(t, x + ".fc1.bias", {ffn});
      blocks::routed(t, x + ".fc2.weight", {n.d, ffn});
      blocks::routed(t, x + ".fc2.bias", {n.d});
    }
  } else {
    blocks::linear(t, layer + ".ffn.fc1", n.d, ffn, true);
    blocks::linear(t, layer + ".ffn.fc2", ffn, n.d, true);
  }
  blocks::norm(t, layer + ".ff_layer_norm", n.d, true);
}

// An NLLB-MoE stack: its embedding tied to (or a copy of) `shared`, sinusoidal positions computed into a
// buffer that is never saved, the layers and a final LayerNorm.
void nllb_moe_stack(ModelTemplate& t, const std::string& stack, const NllbMoeDims& n,
                    const std::string& shared, bool tied, bool cross) {
  tied_or_own(t, stack + ".embed_tokens.weight", shared, tied).embedding = true;
  const StackDims& s = cross ? n.dec : n.enc;
  const uint64_t step = cross ? n.decoder_step : n.encoder_step;
  for (uint64_t i = 0; i < s.layers; ++i)
    nllb_moe_layer(t, layer_name(stack, i), n, s.layer.ffn, cross, nllb_sparse(i, step));
  blocks::norm(t, stack + ".layer_norm", n.d, true);
}

// The record of a stack whose sparse layers route each token to two of `experts` ungated experts.
void route_nllb_layers(StackSpec& s, const NllbMoeDims& n, uint64_t step) {
  for (uint64_t i = 0; i < s.layers.size(); ++i) {
    if (!nllb_sparse(i, step)) continue;
    FfnShape& f = s.layers[i].ffn;
    f.kind = Ffn::Moe;
    f.gated = false;
    f.experts = n.experts;
    f.top_k = 2;
    f.expert_intermediate = f.intermediate;
    f.expert_matrices = 2;
  }
}

void build_nllb_moe(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "NllbMoeModel");
  const std::string task = supported_task(cfg, cls, "NllbMoe", {"Model", "ForConditionalGeneration"});
  t.arch.architecture = cls;
  NllbMoeDims n;
  n.d = cfg.dim_or("d_model", 1024);
  n.vocab = cfg.dim_or("vocab_size", 128112);
  n.positions = cfg.dim_or("max_position_embeddings", 1024);
  n.experts = cfg.dim_or("num_experts", 128);
  n.router_bias = cfg.flag_or("router_bias", false);
  n.enc = read_stack(cfg, "encoder", n.d, 12, 16, 4096);
  n.dec = read_stack(cfg, "decoder", n.d, 12, 16, 4096);
  // transformers treats a step of 0 (or below) as "no sparse layer"; a negative one is refused here.
  n.encoder_step = cfg.count_or("encoder_sparse_step", 4);
  n.decoder_step = cfg.count_or("decoder_sparse_step", 4);
  const bool tied = read_tie(cfg, t);
  t.arch.vocab_size = n.vocab;
  t.arch.position = PositionKind::Sinusoidal;

  const std::string prefix = task == "Model" ? "" : "model.";
  blocks::embedding(t, prefix + "shared.weight", n.vocab, n.d);
  nllb_moe_stack(t, prefix + "encoder", n, prefix + "shared.weight", tied, false);
  nllb_moe_stack(t, prefix + "decoder", n, prefix + "shared.weight", tied, true);
  if (task == "ForConditionalGeneration") tied_or_own(t, "lm_head.weight", prefix + "shared.weight", tied);

  describe_main(t, n.dec, n.positions);
  describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", n.enc, t.arch.head_dim, n.positions);
  route_nllb_layers(t.arch.stacks.back(), n, n.encoder_step);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", n.dec, t.arch.head_dim);
  route_nllb_layers(t.arch.stacks.back(), n, n.decoder_step);
  t.arch.num_experts = n.experts;
  t.arch.experts_per_token = 2;
  t.arch.moe_intermediate_size = n.dec.layer.ffn;
}

// ---- BigBird-Pegasus ----

// BigBirdPegasusConfig's defaults are bigbird-pegasus-large's: 16 + 16 layers of 1024, 96,103 words, 4,096
// learned positions, no bias in any attention projection (use_bias).
void bigbird_pegasus_stack(ModelTemplate& t, const std::string& stack, const StackDims& s, uint64_t vocab,
                           uint64_t positions, const std::string& shared, bool tied, bool bias,
                           bool decoder) {
  const uint64_t d = s.layer.hidden;
  if (shared.empty())
    blocks::embedding(t, stack + ".embed_tokens.weight", vocab, d);
  else
    tied_or_own(t, stack + ".embed_tokens.weight", shared, tied).embedding = true;
  // A learned table of exactly max_position_embeddings rows (no BART offset).
  blocks::embedding(t, stack + ".embed_positions.weight", positions, d);
  for (uint64_t i = 0; i < s.layers; ++i) {
    const std::string layer = layer_name(stack, i);
    if (decoder) {
      bart_lineage_layer(t, layer, d, s.layer.ffn, "encoder_attn", bias);
      continue;
    }
    // The encoder's BigBird attention (block-sparse or full): query, key, value under self_attn.self, the
    // output projection beside them.
    for (const char* proj :
         {".self_attn.self.query", ".self_attn.self.key", ".self_attn.self.value", ".self_attn.output"})
      blocks::linear(t, layer + proj, d, d, bias);
    blocks::norm(t, layer + ".self_attn_layer_norm", d, true);
    blocks::linear(t, layer + ".fc1", d, s.layer.ffn, true);
    blocks::linear(t, layer + ".fc2", s.layer.ffn, d, true);
    blocks::norm(t, layer + ".final_layer_norm", d, true);
  }
  // Named layernorm_embedding, but it normalises each stack's output (Pegasus' final norm).
  blocks::norm(t, stack + ".layernorm_embedding", d, true);
}

void build_bigbird_pegasus(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BigBirdPegasusModel");
  const std::string task = supported_task(cfg, cls, "BigBirdPegasus",
                                          {"Model", "ForConditionalGeneration", "ForSequenceClassification",
                                           "ForQuestionAnswering", "ForCausalLM"});
  t.arch.architecture = cls;
  const uint64_t d = cfg.dim_or("d_model", 1024), vocab = cfg.dim_or("vocab_size", 96103);
  const uint64_t positions = cfg.dim_or("max_position_embeddings", 4096);
  const StackDims enc = read_stack(cfg, "encoder", d, 16, 16, 4096);
  const StackDims dec = read_stack(cfg, "decoder", d, 16, 16, 4096);
  const std::string attention = cfg.string_or("attention_type", "block_sparse");
  if (attention != "block_sparse" && attention != "original_full")
    cfg.fail("attention_type", "must be block_sparse or original_full, found '" + attention + "'");
  const bool bias = cfg.flag_or("use_bias", false);
  const bool tied = read_tie(cfg, t);
  t.arch.vocab_size = vocab;
  t.arch.position = PositionKind::Learned;
  describe_main(t, dec, positions);

  if (task == "ForCausalLM") {
    // The decoder alone with its own embeddings; the class declares no tie, so lm_head is its own.
    bigbird_pegasus_stack(t, "model.decoder", dec, vocab, positions, "", tied, bias, true);
    blocks::linear(t, "lm_head", d, vocab, false);
    describe_stack(t, StackRole::Decoder, "model.decoder.layers", dec, t.arch.head_dim);
    for (LayerSpec& l : t.arch.stacks.back().layers) l.cross_attention.reset();
    return;
  }
  const std::string prefix = task == "Model" ? "" : "model.";
  // The module's own buffer comes before its children in the state_dict.
  if (task == "ForConditionalGeneration") t.add("final_logits_bias", {1, vocab}).kind = TensorKind::Buffer;
  const std::string shared = prefix + "shared.weight";
  blocks::embedding(t, shared, vocab, d);
  bigbird_pegasus_stack(t, prefix + "encoder", enc, vocab, positions, shared, tied, bias, false);
  bigbird_pegasus_stack(t, prefix + "decoder", dec, vocab, positions, shared, tied, bias, true);
  if (task == "ForConditionalGeneration") {
    tied_or_own(t, "lm_head.weight", shared, tied);
  } else if (task == "ForSequenceClassification") {
    blocks::linear(t, "classification_head.dense", d, d, true);
    blocks::linear(t, "classification_head.out_proj", d, num_labels(cfg), true);
  } else if (task == "ForQuestionAnswering") {
    blocks::linear(t, "qa_outputs", d, 2, true);  // the class sets num_labels to 2
  }
  describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", enc, t.arch.head_dim, positions);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", dec, t.arch.head_dim);
}

// ---- FSMT ----

// FSMTConfig's defaults: 12 + 12 layers of 1024 (16 heads, 4096-wide feed-forward), 42,024 words on each
// side. Each stack embeds its own vocabulary (src_vocab_size, tgt_vocab_size); the decoder's
// output_projection holds the target logits. The sinusoidal positions are an nn.Embedding of
// max_position_embeddings + pad_token_id + 1 rows that transformers recomputes at initialisation.
void fsmt_stack(ModelTemplate& t, const std::string& stack, const StackDims& s, uint64_t vocab,
                uint64_t position_rows, bool decoder) {
  const uint64_t d = s.layer.hidden;
  blocks::embedding(t, stack + ".embed_tokens.weight", vocab, d);
  blocks::embedding(t, stack + ".embed_positions.weight", position_rows, d).rebuilt_on_load = true;
  for (uint64_t i = 0; i < s.layers; ++i)
    bart_lineage_layer(t, layer_name(stack, i), d, s.layer.ffn, decoder ? "encoder_attn" : "");
}

void build_fsmt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "FSMTModel");
  const std::string task = supported_task(cfg, cls, "FSMT", {"Model", "ForConditionalGeneration"});
  t.arch.architecture = cls;
  const uint64_t d = cfg.dim_or("d_model", 1024);
  const uint64_t src_vocab = cfg.dim_or("src_vocab_size", 42024);
  // vocab_size is FSMTConfig's alias of tgt_vocab_size.
  const std::string tgt_key =
      cfg.has("tgt_vocab_size") || !cfg.has("vocab_size") ? "tgt_vocab_size" : "vocab_size";
  const uint64_t tgt_vocab = cfg.dim_or(tgt_key, 42024);
  const uint64_t positions = cfg.dim_or("max_position_embeddings", 1024);
  const uint64_t pad = cfg.count_or("pad_token_id", 1);
  const StackDims enc = read_stack(cfg, "encoder", d, 12, 16, 4096);
  const StackDims dec = read_stack(cfg, "decoder", d, 12, 16, 4096);
  // FSMTConfig defaults tie_word_embeddings to false: the WMT19 models keep three tables.
  const bool tied = cfg.flag_or("tie_word_embeddings", false);
  t.arch.tie_word_embeddings = tied;
  if (tied && src_vocab != tgt_vocab)
    cfg.fail("tie_word_embeddings", "ties the source embedding to the target one, but src_vocab_size (" +
                                        std::to_string(src_vocab) + ") differs from tgt_vocab_size (" +
                                        std::to_string(tgt_vocab) + ")");
  t.arch.vocab_size = tgt_vocab;
  t.arch.position = PositionKind::Sinusoidal;

  const std::string prefix = task == "Model" ? "" : "model.";
  const uint64_t rows = positions + pad + 1;
  fsmt_stack(t, prefix + "encoder", enc, src_vocab, rows, false);
  fsmt_stack(t, prefix + "decoder", dec, tgt_vocab, rows, true);
  const std::string target = prefix + "decoder.embed_tokens.weight";
  tied_or_own(t, prefix + "decoder.output_projection.weight", target, tied);
  // The tie makes the encoder's table the target one (registered first, it is the alias).
  if (tied) {
    for (TemplateTensor& x : t.tensors)
      if (x.name == prefix + "encoder.embed_tokens.weight") {
        x.tied_to = target;
        x.stored = false;
      }
  }
  describe_main(t, dec, positions);
  describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", enc, t.arch.head_dim, positions);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", dec, t.arch.head_dim);
}

// ---- Speech2Text ----

// Speech2TextConfig's defaults are s2t-small's: 12 encoder and 6 decoder layers of 256, 4 heads, a
// two-convolution subsampler (kernels 5, 5; 1024 channels) over 80 filterbank features.
void build_speech_to_text(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Speech2TextModel");
  const std::string task = supported_task(cfg, cls, "Speech2Text", {"Model", "ForConditionalGeneration"});
  t.arch.architecture = cls;
  const uint64_t d = cfg.dim_or("d_model", 256), vocab = cfg.dim_or("vocab_size", 10000);
  const StackDims enc = read_stack(cfg, "encoder", d, 12, 4, 2048);
  const StackDims dec = read_stack(cfg, "decoder", d, 6, 4, 2048);
  const uint64_t conv_layers = cfg.dim_or("num_conv_layers", 2);
  std::vector<int64_t> kernels = cfg.ints("conv_kernel_sizes");
  if (!cfg.has("conv_kernel_sizes")) kernels = {5, 5};
  if (kernels.size() != conv_layers)
    cfg.fail("conv_kernel_sizes",
             "must list num_conv_layers (" + std::to_string(conv_layers) + ") kernel sizes");
  for (const int64_t k : kernels)
    if (k < 1 || static_cast<uint64_t>(k) > ModelConfig::kMaxValue)
      cfg.fail("conv_kernel_sizes", "kernel sizes must be positive integers");
  const uint64_t channels = cfg.dim_or("conv_channels", 1024);
  if (conv_layers > 1 && channels < 2)
    cfg.fail("conv_channels", "must be at least 2: each later convolution reads half of them");
  const uint64_t features = cfg.dim_or("input_feat_per_channel", 80) * cfg.dim_or("input_channels", 1);
  const uint64_t src_pos = cfg.dim_or("max_source_positions", 6000);
  const uint64_t tgt_pos = cfg.dim_or("max_target_positions", 1024);
  const bool tied = read_tie(cfg, t);
  t.arch.vocab_size = vocab;
  t.arch.position = PositionKind::Sinusoidal;

  const std::string prefix = task == "Model" ? "" : "model.";
  const std::string encoder = prefix + "encoder", decoder = prefix + "decoder";
  // Each convolution (stride 2) is followed by a GLU that halves its channels; the last one outputs 2 x d.
  for (uint64_t i = 0; i < conv_layers; ++i) {
    const uint64_t in = i == 0 ? features : channels / 2, out = i + 1 < conv_layers ? channels : 2 * d;
    const std::string conv = encoder + ".conv.conv_layers." + std::to_string(i);
    t.add(conv + ".weight", {out, in, static_cast<uint64_t>(kernels[i])});
    t.add(conv + ".bias", {out});
  }
  // Both stacks' sinusoidal positions are non-persistent buffers: nothing stored.
  for (uint64_t i = 0; i < enc.layers; ++i)
    bart_lineage_layer(t, layer_name(encoder, i), d, enc.layer.ffn, "");
  blocks::norm(t, encoder + ".layer_norm", d, true);
  blocks::embedding(t, decoder + ".embed_tokens.weight", vocab, d);
  for (uint64_t i = 0; i < dec.layers; ++i)
    bart_lineage_layer(t, layer_name(decoder, i), d, dec.layer.ffn, "encoder_attn");
  blocks::norm(t, decoder + ".layer_norm", d, true);
  if (task == "ForConditionalGeneration")
    tied_or_own(t, "lm_head.weight", decoder + ".embed_tokens.weight", tied);

  describe_main(t, dec, tgt_pos);
  describe_stack(t, StackRole::Encoder, encoder + ".layers", enc, t.arch.head_dim, src_pos);
  t.arch.stack(StackRole::Encoder)->mel_bins = features;
  describe_stack(t, StackRole::Decoder, decoder + ".layers", dec, t.arch.head_dim);
}

// ---- ProphetNet ----

// ProphetNetConfig's defaults are prophetnet-large-uncased's: 12 + 12 post-norm layers of 1024, 16 heads,
// 30,522 words, 512 learned positions, 2 predicted streams (ngram), 32 relative position buckets.
struct ProphetNetDims {
  uint64_t d = 0, vocab = 0, positions = 0, ngram = 0, buckets = 0;
  StackDims enc, dec;
  bool cross = true;  // add_cross_attention
};

// ProphetNet's attention: key_proj, value_proj, query_proj, out_proj, all biased.
void prophetnet_attention(ModelTemplate& t, const std::string& prefix, uint64_t d) {
  for (const char* proj : {".key_proj", ".value_proj", ".query_proj", ".out_proj"})
    blocks::linear(t, prefix + proj, d, d, true);
}

void prophetnet_feed_forward(ModelTemplate& t, const std::string& layer, uint64_t d, uint64_t ffn) {
  blocks::linear(t, layer + ".feed_forward.intermediate", d, ffn, true);
  blocks::linear(t, layer + ".feed_forward.output", ffn, d, true);
  blocks::norm(t, layer + ".feed_forward_layer_norm", d, true);
}

// `words`: the shared table the stack's word_embeddings is tied to (or copies); empty: its own.
void prophetnet_embeddings(ModelTemplate& t, const std::string& stack, const ProphetNetDims& p,
                           const std::string& words, bool tied) {
  if (words.empty())
    blocks::embedding(t, stack + ".word_embeddings.weight", p.vocab, p.d);
  else
    tied_or_own(t, stack + ".word_embeddings.weight", words, tied).embedding = true;
  blocks::embedding(t, stack + ".position_embeddings.weight", p.positions, p.d);
}

void prophetnet_encoder(ModelTemplate& t, const std::string& stack, const ProphetNetDims& p,
                        const std::string& words, bool tied) {
  prophetnet_embeddings(t, stack, p, words, tied);
  blocks::norm(t, stack + ".embeddings_layer_norm", p.d, true);
  for (uint64_t i = 0; i < p.enc.layers; ++i) {
    const std::string layer = layer_name(stack, i);
    prophetnet_attention(t, layer + ".self_attn", p.d);
    blocks::norm(t, layer + ".self_attn_layer_norm", p.d, true);
    prophetnet_feed_forward(t, layer, p.d, p.enc.layer.ffn);
  }
}

// The decoder: its n-gram self-attention learns a relative-position bias per bucket and head from the
// hidden state (relative_pos_embeddings); ngram_embeddings mark the predicting streams.
void prophetnet_decoder(ModelTemplate& t, const std::string& stack, const ProphetNetDims& p,
                        const std::string& words, bool tied) {
  prophetnet_embeddings(t, stack, p, words, tied);
  blocks::embedding(t, stack + ".ngram_embeddings.weight", p.ngram, p.d);
  for (uint64_t i = 0; i < p.dec.layers; ++i) {
    const std::string layer = layer_name(stack, i);
    prophetnet_attention(t, layer + ".self_attn", p.d);
    blocks::linear(t, layer + ".self_attn.relative_pos_embeddings", p.d, p.buckets * p.dec.layer.heads, true);
    blocks::norm(t, layer + ".self_attn_layer_norm", p.d, true);
    if (p.cross) {
      prophetnet_attention(t, layer + ".cross_attn", p.d);
      blocks::norm(t, layer + ".cross_attn_layer_norm", p.d, true);
    }
    prophetnet_feed_forward(t, layer, p.d, p.dec.layer.ffn);
  }
  blocks::norm(t, stack + ".embeddings_layer_norm", p.d, true);
}

StackDims prophetnet_stack(const ModelConfig& cfg, const std::string& side, uint64_t d) {
  StackDims s;
  s.layers = cfg.layers_or("num_" + side + "_layers", 12, 0);
  s.layer.hidden = d;
  s.layer.heads = cfg.dim_or("num_" + side + "_attention_heads", 16);
  s.layer.ffn = cfg.dim_or(side + "_ffn_dim", 4096);
  split_heads(cfg, "num_" + side + "_attention_heads", d, s.layer.heads);
  return s;
}

void build_prophetnet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ProphetNetModel");
  const std::string task = supported_task(
      cfg, cls, "ProphetNet", {"Model", "ForConditionalGeneration", "ForCausalLM", "Encoder", "Decoder"});
  t.arch.architecture = cls;
  ProphetNetDims p;
  p.d = cfg.dim_or("hidden_size", 1024);
  p.vocab = cfg.dim_or("vocab_size", 30522);
  p.positions = cfg.dim_or("max_position_embeddings", 512);
  p.ngram = cfg.dim_or("ngram", 2);
  p.buckets = cfg.dim_or("num_buckets", 32);
  p.cross = cfg.flag_or("add_cross_attention", true);
  p.enc = prophetnet_stack(cfg, "encoder", p.d);
  p.dec = prophetnet_stack(cfg, "decoder", p.d);
  const bool tied = read_tie(cfg, t);
  t.arch.vocab_size = p.vocab;
  t.arch.position = PositionKind::Learned;
  t.arch.post_norm = true;
  describe_main(t, task == "Encoder" ? p.enc : p.dec, p.positions);

  // The bare stacks have no prefix: strip the leading '.' the helpers add to "".
  const auto bare = [&t] {
    for (TemplateTensor& x : t.tensors)
      if (!x.name.empty() && x.name.front() == '.') x.name.erase(0, 1);
  };
  if (task == "Encoder") {
    prophetnet_encoder(t, "", p, "", tied);
    bare();
    describe_stack(t, StackRole::Encoder, "layers", p.enc, t.arch.head_dim, p.positions);
    return;
  }
  if (task == "Decoder") {
    prophetnet_decoder(t, "", p, "", tied);
    bare();
    describe_stack(t, StackRole::Decoder, "layers", p.dec, t.arch.head_dim);
    if (!p.cross)
      for (LayerSpec& l : t.arch.stacks.back().layers) l.cross_attention.reset();
    return;
  }
  if (task == "ForCausalLM") {
    // ProphetNetDecoderWrapper: a word table of its own that the decoder's (and lm_head) are tied to.
    blocks::embedding(t, "prophetnet.word_embeddings.weight", p.vocab, p.d);
    prophetnet_decoder(t, "prophetnet.decoder", p, "prophetnet.word_embeddings.weight", tied);
    tied_or_own(t, "lm_head.weight", "prophetnet.word_embeddings.weight", tied);
    describe_stack(t, StackRole::Decoder, "prophetnet.decoder.layers", p.dec, t.arch.head_dim);
    if (!p.cross)
      for (LayerSpec& l : t.arch.stacks.back().layers) l.cross_attention.reset();
    return;
  }
  const std::string prefix = task == "Model" ? "" : "prophetnet.";
  const std::string words = prefix + "word_embeddings.weight";
  blocks::embedding(t, words, p.vocab, p.d);
  prophetnet_encoder(t, prefix + "encoder", p, words, tied);
  prophetnet_decoder(t, prefix + "decoder", p, words, tied);
  if (task == "ForConditionalGeneration") tied_or_own(t, "lm_head.weight", words, tied);
  describe_stack(t, StackRole::Encoder, prefix + "encoder.layers", p.enc, t.arch.head_dim, p.positions);
  describe_stack(t, StackRole::Decoder, prefix + "decoder.layers", p.dec, t.arch.head_dim);
  if (!p.cross)
    for (LayerSpec& l : t.arch.stacks.back().layers) l.cross_attention.reset();
}

// ---- Reformer ----

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
  std::vector<uint64_t> out;
  for (const int64_t v : cfg.ints(key)) {
    if (v < 1 || static_cast<uint64_t>(v) > ModelConfig::kMaxValue)
      cfg.fail(key, "entries must be positive integers");
    out.push_back(static_cast<uint64_t>(v));
  }
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

constexpr std::array kSeq2SeqClassics{
    FamilyBuilder{"nllb-moe", build_nllb_moe},
    FamilyBuilder{"bigbird_pegasus", build_bigbird_pegasus},
    FamilyBuilder{"fsmt", build_fsmt},
    FamilyBuilder{"speech_to_text", build_speech_to_text},
    FamilyBuilder{"prophetnet", build_prophetnet},
    FamilyBuilder{"reformer", build_reformer},
};

}  // namespace

std::span<const FamilyBuilder> seq2seq_classics() {
  return kSeq2SeqClassics;
}

}  // namespace ma::families
