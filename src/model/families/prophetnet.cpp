// ProphetNet (microsoft/prophetnet-large-uncased): an encoder-decoder whose decoder predicts n future
// tokens in n extra streams (n-gram self-attention with learned relative-position buckets).
#include <cstdint>
#include <string>

#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/seq2seq_classics.h"

namespace ma::families {

namespace {

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
    const std::string layer = numbered_layer(stack, i);
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
    const std::string layer = numbered_layer(stack, i);
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

}  // namespace

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

}  // namespace ma::families
