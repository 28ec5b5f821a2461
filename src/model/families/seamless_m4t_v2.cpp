// SeamlessM4T v2 (SeamlessM4Tv2Model; facebook/seamless-m4t-v2-large): SeamlessM4T's layout with the speech
// layers Wav2Vec2-BERT later copied (Shaw's distance embedding, a LayerNorm after the causal depthwise
// convolution) and a non-autoregressive text-to-unit decoder: character embeddings, a duration predictor
// and layers of self-attention and two convolutions, without cross-attention. Its LM head is tied to the
// decoder's unit embedding, as in v1.
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/seamless.h"
#include "model/families/seamless_m4t_parts.h"
#include "model/families/seq2seq_classics.h"

namespace ma::families {
namespace {

// SeamlessM4Tv2TextToUnitDecoder under `p`: its two position scales (own parameters, so listed first), the
// unit and character embeddings, the duration predictor, the layers and the final LayerNorm. Its
// sinusoidal position tables are buffers never saved; decoder_ffn_dim is read by nothing.
void seamless_v2_t2u_decoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                             const SeamlessDims& d) {
  const uint64_t h = d.hidden;
  t.add(p + "pos_emb_alpha_char", {1});
  t.add(p + "pos_emb_alpha", {1});
  blocks::embedding(t, p + "embed_tokens.weight", d.t2u_vocab, h);
  blocks::embedding(t, p + "embed_char.weight", cfg.dim_or("char_vocab_size", 10943), h);
  seamless_variance_predictor(t, p + "duration_predictor.",
                              cfg.dim_or("t2u_variance_predictor_embed_dim", 1024),
                              cfg.dim_or("t2u_variance_predictor_hidden_dim", 256),
                              cfg.dim_or("t2u_variance_predictor_kernel_size", 3));
  StackSpec& s = t.arch.add_stack(StackRole::Decoder, p + "layers", h);
  LayerSpec l = attention_dense_layer();
  l.attention.heads = l.attention.kv_heads = d.t2u_decoder.layer.heads;
  l.attention.head_dim = h / d.t2u_decoder.layer.heads;
  l.ffn.kind = Ffn::None;  // two kernel-7 convolutions stand where the feed-forward would
  for (uint64_t i = 0; i < d.t2u_decoder.layers; ++i) {
    const std::string layer = s.path + "." + std::to_string(i) + ".";
    kvq_attention(t, layer + "self_attn", h, true);
    blocks::norm(t, layer + "self_attn_layer_norm", h, true);
    blocks::conv1d(t, layer + "conv1", h, h, 7);
    blocks::conv1d(t, layer + "conv2", h, h, 7);
    blocks::norm(t, layer + "conv_layer_norm", h, true);
    s.layers.push_back(l);
  }
  blocks::norm(t, p + "layer_norm", h, true);
}

}  // namespace

void build_seamless_m4t_v2(const ModelConfig& cfg, ModelTemplate& t) {
  const SeamlessDims d = seamless_model_before_t2u_decoder(cfg, t, true);

  const std::string decoder = "t2u_model.model.decoder.";
  seamless_v2_t2u_decoder(cfg, t, decoder, d);
  tied_or_own(t, "t2u_model.lm_head.weight", decoder + "embed_tokens.weight", d.tied);

  seamless_code_hifigan(cfg, t, "vocoder.");
}

}  // namespace ma::families
