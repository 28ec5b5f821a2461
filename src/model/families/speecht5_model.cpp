// SpeechT5 (transformers' SpeechT5Model and its task classes): one post-norm transformer encoder-decoder,
// shared by speech recognition, text-to-speech and voice conversion, with task-specific pre-nets in front of
// each stack and post-nets after the decoder. SpeechT5Config's defaults are the base sizes every Microsoft
// checkpoint uses: 12 encoder and 6 decoder layers of 768, 12 heads, 3,072-wide feed-forwards.
//   SpeechT5ForSpeechToText (speecht5_asr): speech encoder prenet, text decoder prenet, an LM head tied to
//     the decoder's token embeddings.
//   SpeechT5ForTextToSpeech (speecht5_tts): text encoder prenet, speech decoder prenet, speech postnet.
//   SpeechT5ForSpeechToSpeech (speecht5_vc): speech prenets on both sides, speech postnet.
//   SpeechT5Model alone: no prenet nor postnet (encoder.wrapped_encoder, decoder.wrapped_decoder).
// The encoder adds a relative position bias from one table shared by all its layers; the fixed sinusoidal
// tables of the prenets are non-persistent buffers (pe of the scaled positional encodings, the weights of the
// sinusoidal ones): nothing of them is saved or counted, but each scaled encoding learns a scalar alpha.
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/encoders_seq2seq_parts.h"
#include "model/families/speecht5.h"
#include "model/families/wav2vec2_parts.h"

namespace ma::families {
namespace {

// transformers 4 made the sinusoidal tables (SpeechT5SinusoidalPositionalEmbedding.weights) parameters, so
// Hub checkpoints written with it store them; transformers 5 recomputes them as non-persistent buffers.
constexpr const char* kSpeechT5OldSinusoid =
    "sinusoidal position table older transformers saved as a parameter; transformers 5 recomputes it as a "
    "buffer";

// SpeechT5SpeechEncoderPrenet: wav2vec 2.0's feature encoder and projection, the SpecAugment mask vector (a
// parameter of the prenet itself, so listed first), wav2vec 2.0's weight-normed positional convolution; then
// a sinusoidal table (pos_sinusoidal_embed), a buffer.
void speecht5_speech_encoder_prenet(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                                    uint64_t hidden) {
  if (cfg.number_or("mask_time_prob", 0.05) > 0 || cfg.number_or("mask_feature_prob", 0) > 0)
    t.add(p + "masked_spec_embed", {hidden});
  const uint64_t features = wav2vec2_feature_encoder(cfg, t, p + "feature_encoder.conv_layers");
  blocks::norm(t, p + "feature_projection.layer_norm", features, true);
  blocks::linear(t, p + "feature_projection.projection", features, hidden, true);
  weight_normed_position_conv(t, p + "pos_conv_embed.conv", hidden, conv_position_dims(cfg, hidden));
  t.known_extras.push_back({p + "pos_sinusoidal_embed.", kSpeechT5OldSinusoid});
}

// SpeechT5TextEncoderPrenet: the token table and a scaled positional encoding (its alpha).
void speecht5_text_encoder_prenet(ModelTemplate& t, const std::string& p, uint64_t vocab, uint64_t hidden) {
  blocks::embedding(t, p + "embed_tokens.weight", vocab, hidden);
  t.add(p + "encode_positions.alpha", {});
}

// SpeechT5SpeechDecoderPrenet: speech_decoder_prenet_layers linears over the previous mel frame, a final one
// into the model's width, a scaled positional encoding, and the layer that mixes in the x-vector of the
// speaker (speaker_embedding_dim wide) next to the hidden state.
void speecht5_speech_decoder_prenet(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                                    uint64_t hidden) {
  const uint64_t mel = cfg.dim_or("num_mel_bins", 80), units = cfg.dim_or("speech_decoder_prenet_units", 256);
  const uint64_t layers = cfg.count_or("speech_decoder_prenet_layers", 2);
  for (uint64_t i = 0; i < layers; ++i)
    blocks::linear(t, p + "layers." + std::to_string(i), i ? units : mel, units, true);
  blocks::linear(t, p + "final_layer", units, hidden, true);
  t.add(p + "encode_positions.alpha", {});
  blocks::linear(t, p + "speaker_embeds_layer", cfg.count_or("speaker_embedding_dim", 512) + hidden, hidden,
                 true);
}

// SpeechT5SpeechDecoderPostnet: feat_out predicts reduction_factor mel frames per step, prob_out the stop
// logits; then a residual stack of bias-free convolutions, each followed by a BatchNorm whose running
// statistics are persistent buffers (mel bins in and out at the ends, speech_decoder_postnet_units between).
void speecht5_speech_decoder_postnet(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                                     uint64_t hidden) {
  const uint64_t mel = cfg.dim_or("num_mel_bins", 80), reduction = cfg.dim_or("reduction_factor", 2);
  blocks::linear(t, p + "feat_out", hidden, mel * reduction, true);
  blocks::linear(t, p + "prob_out", hidden, reduction, true);
  speech_postnet_convs(cfg, t, p, mel);
}

}  // namespace

void speech_postnet_convs(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, uint64_t mel) {
  const uint64_t layers = cfg.count_or("speech_decoder_postnet_layers", 5),
                 units = cfg.dim_or("speech_decoder_postnet_units", 256),
                 kernel = cfg.dim_or("speech_decoder_postnet_kernel", 5);
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string c = p + "layers." + std::to_string(i) + ".";
    const uint64_t out = i + 1 == layers ? mel : units;
    t.add(c + "conv.weight", {out, i ? units : mel, kernel});
    blocks::norm(t, c + "batch_norm", out, true);
    for (const char* b : {"running_mean", "running_var"})
      t.add(c + "batch_norm." + b, {out}).kind = TensorKind::Buffer;
    t.add(c + "batch_norm.num_batches_tracked", {}).kind = TensorKind::Buffer;
  }
}

namespace {

// The attention and feed-forward names SpeechT5's layers share: BART's attention (k, v, q, out_proj) and
// wav2vec 2.0's feed_forward.{intermediate,output}_dense.
LayerNames speecht5_layer_names(bool decoder) {
  LayerNames n;
  const std::string attn = decoder ? "self_attn." : "attention.";
  n.q = attn + "q_proj";
  n.k = attn + "k_proj";
  n.v = attn + "v_proj";
  n.o = attn + "out_proj";
  n.key_first = true;
  n.attn_norm = decoder ? "self_attn_layer_norm" : "layer_norm";
  if (decoder) {
    n.cross_q = "encoder_attn.q_proj";
    n.cross_k = "encoder_attn.k_proj";
    n.cross_v = "encoder_attn.v_proj";
    n.cross_o = "encoder_attn.out_proj";
    n.cross_norm = "encoder_attn_layer_norm";
  }
  n.fc1 = "feed_forward.intermediate_dense";
  n.fc2 = "feed_forward.output_dense";
  n.ffn_norm = "final_layer_norm";
  return n;
}

// SpeechT5Encoder under `p` ("speecht5.encoder.wrapped_encoder."): a LayerNorm applied to the prenet's output
// before the layers, the post-norm layers, then the relative position table (pe_k: 2 x
// encoder_max_relative_position rows of head_dim, one for all layers).
void speecht5_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, const StackDims& enc) {
  blocks::norm(t, p + "layer_norm", enc.layer.hidden, true);
  const LayerNames n = speecht5_layer_names(false);
  for (uint64_t i = 0; i < enc.layers; ++i)
    transformer_layer(t, p + "layers." + std::to_string(i), n, enc.layer);
  blocks::embedding(t, p + "embed_positions.pe_k.weight",
                    2 * cfg.dim_or("encoder_max_relative_position", 160), enc.layer.hidden / enc.layer.heads);
}

// SpeechT5Decoder under `p`: post-norm layers with cross-attention, no final norm.
void speecht5_decoder(ModelTemplate& t, const std::string& p, const StackDims& dec) {
  const LayerNames n = speecht5_layer_names(true);
  for (uint64_t i = 0; i < dec.layers; ++i)
    transformer_layer(t, p + "layers." + std::to_string(i), n, dec.layer);
}

}  // namespace

void build_speecht5(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "SpeechT5Model");
  const std::string task = supported_task(
      cfg, cls, "SpeechT5", {"Model", "ForSpeechToText", "ForTextToSpeech", "ForSpeechToSpeech"});
  const bool speech_in = task == "ForSpeechToText" || task == "ForSpeechToSpeech";
  const bool speech_out = task == "ForTextToSpeech" || task == "ForSpeechToSpeech";
  const uint64_t h = cfg.dim_or("hidden_size", 768), vocab = cfg.dim_or("vocab_size", 81);
  // SpeechT5Attention raises unless the heads divide the width (read_stack checks it).
  const StackDims enc = read_stack(cfg, "encoder", h, 12, 12, 3072);
  const StackDims dec = read_stack(cfg, "decoder", h, 6, 12, 3072);
  const uint64_t speech_positions = cfg.dim_or("max_speech_positions", 4000),
                 text_positions = cfg.dim_or("max_text_positions", 450);

  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.vocab_size = vocab;
  a.norm = NormKind::LayerNorm;
  a.post_norm = true;
  a.activation = cfg.string_or("hidden_act", "gelu");
  a.position = PositionKind::Relative;
  a.attention_bias = a.mlp_bias = true;
  // The decoder's prenet positions bound what it generates: mel frames (a table of max_speech_positions) or
  // tokens (max_text_positions); SpeechT5Model has no prenet and no bound.
  describe_main(t, dec, task == "Model" ? 0 : speech_out ? speech_positions : text_positions);

  // The task classes hold the encoder-decoder as speecht5; SpeechT5Model is it.
  const std::string p = task == "Model" ? "" : "speecht5.";
  const std::string encoder = p + "encoder.", decoder = p + "decoder.";
  if (task != "Model") {
    if (speech_in)
      speecht5_speech_encoder_prenet(cfg, t, encoder + "prenet.", h);
    else
      speecht5_text_encoder_prenet(t, encoder + "prenet.", vocab, h);
  }
  speecht5_encoder(cfg, t, encoder + "wrapped_encoder.", enc);
  if (task != "Model") {
    if (speech_out) {
      speecht5_speech_decoder_prenet(cfg, t, decoder + "prenet.", h);
    } else {
      blocks::embedding(t, decoder + "prenet.embed_tokens.weight", vocab, h);
      t.known_extras.push_back({decoder + "prenet.embed_positions.", kSpeechT5OldSinusoid});
    }
  }
  speecht5_decoder(t, decoder + "wrapped_decoder.", dec);
  if (speech_out) speecht5_speech_decoder_postnet(cfg, t, "speech_decoder_postnet.", h);
  // The recognizer's head is tied to the text decoder's token table (get_output_embeddings /
  // get_input_embeddings) unless tie_word_embeddings is false.
  const bool tied = read_tie(cfg, t);
  if (task == "ForSpeechToText")
    tied_or_own(t, "text_decoder_postnet.lm_head.weight", decoder + "prenet.embed_tokens.weight", tied);
  else
    a.tie_word_embeddings = false;

  describe_stack(t, StackRole::Encoder, encoder + "wrapped_encoder.layers", enc, h / enc.layer.heads,
                 task == "Model" ? 0
                 : speech_in     ? speech_positions
                                 : text_positions);
  describe_stack(t, StackRole::Decoder, decoder + "wrapped_decoder.layers", dec, h / dec.layer.heads);
}

}  // namespace ma::families
