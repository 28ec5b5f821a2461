#include "model/families/seamless_m4t_parts.h"

#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/hifigan_generator.h"
#include "model/families/seq2seq_classics.h"
#include "model/families/wav2vec2_conformer_parts.h"

namespace ma::families {
namespace {

SeamlessDims read_seamless_dims(const ModelConfig& cfg, ModelTemplate& t) {
  SeamlessDims d;
  d.hidden = cfg.dim_or("hidden_size", 1024);
  d.vocab = cfg.dim_or("vocab_size", 256102);
  d.t2u_vocab = cfg.dim_or("t2u_vocab_size", 10082);
  d.text_encoder = read_stack(cfg, "encoder", d.hidden, 24, 16, 8192);
  d.text_decoder = read_stack(cfg, "decoder", d.hidden, 24, 16, 8192);
  // The text-to-unit model reads a copy of the config whose t2u_ fields replace the unprefixed ones.
  d.t2u_encoder = read_stack(cfg, "t2u_encoder", d.hidden, 6, 16, 8192);
  d.t2u_decoder = read_stack(cfg, "t2u_decoder", d.hidden, 6, 16, 8192);
  d.tied = read_tie(cfg, t);
  return d;
}

// The Conformer speech encoder's layer: v1's self-attention adds Transformer-XL's relative positions and its
// convolution module a BatchNorm; v2's Shaw's distance embedding and a LayerNorm.
ConformerLayerDims seamless_conformer_dims(const ModelConfig& cfg, uint64_t hidden, bool v2) {
  ConformerLayerDims c;
  c.hidden = hidden;
  c.heads = cfg.dim_or("speech_encoder_attention_heads", 16);
  split_heads(cfg, "speech_encoder_attention_heads", hidden, c.heads);
  c.ffn = cfg.dim_or("speech_encoder_intermediate_size", 4096);
  c.kernel = conformer_depthwise_kernel(cfg);
  c.depthwise_layer_norm = v2;
  // Neither config class checks the value: a type the attention does not know adds no parameter.
  const std::string positions = conformer_position_type(cfg, v2 ? "relative_key" : "relative");
  if (!v2 && positions == "relative") c.positions = ConformerPositions::Relative;
  if (v2 && positions == "relative_key") {
    c.positions = ConformerPositions::RelativeKey;
    c.distance_rows = cfg.count_or("left_max_position_embeddings", 64) +
                      cfg.count_or("right_max_position_embeddings", 8) + 1;
  }
  return c;
}

// SeamlessM4TSpeechEncoder under `p`: feature_projection, the Conformer encoder (v1 with rotary positions
// also saves its embed_positions.inv_freq, a persistent buffer), the intermediate feed-forward (registered
// before the adapter, run after the encoder), the adapter layers and inner_layer_norm.
void seamless_speech_encoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p,
                             const ConformerLayerDims& c, bool rotary) {
  const uint64_t input = cfg.dim_or("feature_projection_input_dim", 160);
  blocks::norm(t, p + "feature_projection.layer_norm", input, true);
  blocks::linear(t, p + "feature_projection.projection", input, c.hidden, true);
  const uint64_t head = c.hidden / c.heads;
  if (rotary) t.add(p + "encoder.embed_positions.inv_freq", {(head + 1) / 2}).kind = TensorKind::Buffer;
  const uint64_t layers = cfg.layers_or("speech_encoder_layers", 24, 0);
  StackSpec& s = t.arch.add_stack(StackRole::Audio, p + "encoder.layers", c.hidden);
  LayerSpec l = attention_dense_layer();
  l.attention.heads = l.attention.kv_heads = c.heads;
  l.attention.head_dim = head;
  l.ffn.gated = false;
  l.ffn.intermediate = c.ffn;
  for (uint64_t i = 0; i < layers; ++i) {
    wav2vec2_conformer_layer(t, s.path + "." + std::to_string(i), c);
    s.layers.push_back(l);
  }
  blocks::norm(t, p + "encoder.layer_norm", c.hidden, true);
  wav2vec2_feed_forward(t, p + "intermediate_ffn.", c.hidden, c.ffn);
  if (cfg.flag_or("add_adapter", true)) {
    const uint64_t kernel = cfg.dim_or("adaptor_kernel_size", 8);
    for (uint64_t i = 0; i < cfg.count_or("num_adapter_layers", 1); ++i)
      conformer_adapter_layer(t, p + "adapter.layers." + std::to_string(i) + ".", c.hidden, c.ffn, kernel);
  }
  blocks::norm(t, p + "inner_layer_norm", c.hidden, true);
}

// A text stack's layers and final LayerNorm (its embed_tokens, when it has one, is added by the caller; its
// sinusoidal positions are a buffer never saved).
void seamless_stack_layers(ModelTemplate& t, const std::string& stack, const StackDims& s, bool cross) {
  for (uint64_t i = 0; i < s.layers; ++i)
    seamless_text_layer(t, numbered_layer(stack, i), s.layer.hidden, s.layer.ffn, cross);
  blocks::norm(t, stack + ".layer_norm", s.layer.hidden, true);
}

void seamless_translation_model(const ModelConfig& cfg, ModelTemplate& t, const SeamlessDims& d,
                                const ConformerLayerDims& conformer) {
  blocks::embedding(t, "shared.weight", d.vocab, d.hidden);
  // transformers 5 ties both stacks' embed_tokens and lm_head to shared (_tied_weights_keys) when
  // tie_word_embeddings holds, as NLLB-MoE's; otherwise each is its own copy.
  tied_or_own(t, "text_encoder.embed_tokens.weight", "shared.weight", d.tied).embedding = true;
  seamless_stack_layers(t, "text_encoder", d.text_encoder, false);
  seamless_speech_encoder(
      cfg, t, "speech_encoder.", conformer,
      !conformer.depthwise_layer_norm && conformer_position_type(cfg, "relative") == "rotary");
  tied_or_own(t, "text_decoder.embed_tokens.weight", "shared.weight", d.tied).embedding = true;
  seamless_stack_layers(t, "text_decoder", d.text_decoder, true);
  tied_or_own(t, "lm_head.weight", "shared.weight", d.tied);
  describe_stack(t, StackRole::Encoder, "text_encoder.layers", d.text_encoder,
                 d.hidden / d.text_encoder.layer.heads);
  describe_stack(t, StackRole::Decoder, "text_decoder.layers", d.text_decoder,
                 d.hidden / d.text_decoder.layer.heads);
}

// The text-to-unit encoder: SeamlessM4TEncoder built with is_t2u_encoder, so no embeddings, only the layers
// and the final LayerNorm.
void seamless_t2u_encoder(ModelTemplate& t, const std::string& encoder, const SeamlessDims& d) {
  seamless_stack_layers(t, encoder, d.t2u_encoder, false);
  describe_stack(t, StackRole::Encoder, encoder + ".layers", d.t2u_encoder,
                 d.hidden / d.t2u_encoder.layer.heads);
}

}  // namespace

SeamlessDims seamless_model_before_t2u_decoder(const ModelConfig& cfg, ModelTemplate& t, bool v2) {
  const std::string cls = architecture_of(cfg, v2 ? "SeamlessM4Tv2Model" : "SeamlessM4TModel");
  supported_task(cfg, cls, v2 ? "SeamlessM4Tv2" : "SeamlessM4T", {"Model"});
  t.arch.architecture = cls;
  const SeamlessDims d = read_seamless_dims(cfg, t);
  t.arch.vocab_size = d.vocab;
  t.arch.position = PositionKind::Sinusoidal;
  describe_main(t, d.text_decoder, cfg.dim_or("max_position_embeddings", v2 ? 4096 : 1024));
  seamless_translation_model(cfg, t, d, seamless_conformer_dims(cfg, d.hidden, v2));
  seamless_t2u_encoder(t, "t2u_model.model.encoder", d);
  return d;
}

void seamless_text_layer(ModelTemplate& t, const std::string& layer, uint64_t hidden, uint64_t ffn,
                         bool cross) {
  kvq_attention(t, layer + ".self_attn", hidden, true);
  blocks::norm(t, layer + ".self_attn_layer_norm", hidden, true);
  if (cross) {
    kvq_attention(t, layer + ".cross_attention", hidden, true);
    blocks::norm(t, layer + ".cross_attention_layer_norm", hidden, true);
  }
  blocks::linear(t, layer + ".ffn.fc1", hidden, ffn, true);
  blocks::linear(t, layer + ".ffn.fc2", ffn, hidden, true);
  blocks::norm(t, layer + ".ffn_layer_norm", hidden, true);
}

void seamless_variance_predictor(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t hidden,
                                 uint64_t kernel) {
  blocks::conv1d(t, p + "conv1", in, hidden, kernel);
  blocks::norm(t, p + "ln1", hidden, true);
  blocks::conv1d(t, p + "conv2", hidden, hidden, kernel);
  blocks::norm(t, p + "ln2", hidden, true);
  blocks::linear(t, p + "proj", hidden, 1, true);
}

void seamless_code_hifigan(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  const uint64_t unit = cfg.dim_or("unit_embed_dim", 1280);
  const uint64_t lang = cfg.dim_or("lang_embed_dim", 256), speaker = cfg.dim_or("spkr_embed_dim", 256);
  // The duration predictor works at the unit embedding's width (v2 passes it as both widths).
  seamless_variance_predictor(t, p + "dur_predictor.", unit, unit,
                              cfg.dim_or("variance_predictor_kernel_size", 3));
  blocks::embedding(t, p + "unit_embedding.weight", cfg.dim_or("unit_hifi_gan_vocab_size", 10000), unit);
  blocks::embedding(t, p + "speaker_embedding.weight", cfg.dim_or("vocoder_num_spkrs", 200), speaker);
  blocks::embedding(t, p + "language_embedding.weight", cfg.dim_or("vocoder_num_langs", 36), lang);
  // SeamlessM4TConfig's generator: five stages (x5, x4, x4, x2, x2; kernels 11, 8, 8, 4, 4) from 512
  // channels, residual blocks of kernels 3, 7, 11 with dilations 1, 3, 5; it reads the three embeddings
  // concatenated.
  HifiGanDims g;
  g.upsample_rates = {5, 4, 4, 2, 2};
  g.upsample_kernels = {11, 8, 8, 4, 4};
  g.resblock_kernels = {3, 7, 11};
  g.resblock_dilation_counts = {3, 3, 3};
  read_hifigan_dims(cfg, g);
  const uint64_t channels = hifigan_generator(t, p + "hifi_gan.", unit + lang + speaker, g);
  blocks::conv1d(t, p + "hifi_gan.conv_post", channels, 1, 7);
}

}  // namespace ma::families
