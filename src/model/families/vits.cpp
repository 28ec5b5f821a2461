// VITS (VitsModel): end-to-end text-to-speech, the architecture of Kakao Enterprise's vits-ljs / vits-vctk
// and of Meta's ~1,100 MMS-TTS checkpoints (facebook/mms-tts-*). A post-norm transformer text encoder with
// windowed relative positions predicts a prior; a duration predictor (stochastic: normalizing flows over
// rational-quadratic splines) stretches it to frames; a residual-coupling flow maps it to the acoustic
// latent, which a HiFi-GAN generator turns into a waveform. The posterior encoder (a WaveNet over linear
// spectrograms) only serves training, but transformers builds it and the checkpoints store it.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/hifigan_generator.h"
#include "model/families/tts_vits.h"

namespace ma::families {
namespace {

// VitsConfig's fields; its defaults are facebook/mms-tts-eng's sizes.
struct VitsDims {
  uint64_t vocab = 38, hidden = 192, layers = 6, heads = 2, window = 4, ffn = 768, ffn_kernel = 3;
  bool bias = true;
  uint64_t flow = 192, spectrogram_bins = 513;
  bool stochastic_duration = true;
  uint64_t speakers = 1, speaker_width = 0;
  HifiGanDims hifigan{.upsample_initial = 512,
                      .upsample_rates = {8, 8, 2, 2},
                      .upsample_kernels = {16, 16, 4, 4},
                      .resblock_kernels = {3, 7, 11},
                      .resblock_dilation_counts = {3, 3, 3}};
  uint64_t separable_channels = 2, separable_layers = 3, flow_bins = 10, duration_kernel = 3,
           duration_flows = 4, duration_filter = 256;
  uint64_t prior_flows = 4, prior_wavenet_layers = 4, posterior_wavenet_layers = 16, wavenet_kernel = 5;
};

VitsDims read_vits(const ModelConfig& cfg) {
  VitsDims d;
  d.vocab = cfg.dim_or("vocab_size", d.vocab);
  d.hidden = cfg.dim_or("hidden_size", d.hidden);
  d.layers = cfg.layers_or("num_hidden_layers", d.layers, 0);
  d.heads = cfg.dim_or("num_attention_heads", d.heads);
  split_heads(cfg, "num_attention_heads", d.hidden, d.heads);  // VitsAttention raises otherwise
  // VitsAttention builds its relative-position tables `if window_size:`: none for null or 0.
  d.window = cfg.raw("window_size") ? cfg.count_or("window_size", 0) : d.window;
  d.bias = cfg.flag_or("use_bias", d.bias);
  d.ffn = cfg.dim_or("ffn_dim", d.ffn);
  d.ffn_kernel = cfg.dim_or("ffn_kernel_size", d.ffn_kernel);
  d.flow = cfg.dim_or("flow_size", d.flow);
  if (d.flow < 2) cfg.fail("flow_size", "must be at least 2 (the coupling layers split it in halves)");
  d.spectrogram_bins = cfg.dim_or("spectrogram_bins", d.spectrogram_bins);
  d.stochastic_duration = cfg.flag_or("use_stochastic_duration_prediction", d.stochastic_duration);
  d.speakers = cfg.count_or("num_speakers", d.speakers);
  d.speaker_width = cfg.count_or("speaker_embedding_size", d.speaker_width);
  // With several speakers VitsModel conditions every module on the speaker's embedding, through layers
  // that exist only when it has a width.
  if (d.speakers > 1 && d.speaker_width == 0)
    cfg.fail("speaker_embedding_size", "must be set when num_speakers > 1");

  read_hifigan_dims(cfg, d.hifigan);

  d.separable_channels = cfg.dim_or("depth_separable_channels", d.separable_channels);
  if (d.stochastic_duration && d.separable_channels < 2)
    cfg.fail("depth_separable_channels", "must be at least 2 (the spline flows split it in halves)");
  d.separable_layers = cfg.count_or("depth_separable_num_layers", d.separable_layers);
  d.flow_bins = cfg.dim_or("duration_predictor_flow_bins", d.flow_bins);
  d.duration_kernel = cfg.dim_or("duration_predictor_kernel_size", d.duration_kernel);
  d.duration_flows = cfg.count_or("duration_predictor_num_flows", d.duration_flows);
  d.duration_filter = cfg.dim_or("duration_predictor_filter_channels", d.duration_filter);
  d.prior_flows = cfg.count_or("prior_encoder_num_flows", d.prior_flows);
  d.prior_wavenet_layers = cfg.count_or("prior_encoder_num_wavenet_layers", d.prior_wavenet_layers);
  d.posterior_wavenet_layers =
      cfg.count_or("posterior_encoder_num_wavenet_layers", d.posterior_wavenet_layers);
  d.wavenet_kernel = cfg.dim_or("wavenet_kernel_size", d.wavenet_kernel);
  return d;
}

// VitsEncoderLayer: relative-position attention (k, v, q, out_proj, registered after the attention's own
// emb_rel_k / emb_rel_v tables of 2 * window_size + 1 positions per head width), a LayerNorm, a feed-forward
// of two convolutions over ffn_kernel_size positions, and a final LayerNorm: post-norm.
void vits_encoder_layer(ModelTemplate& t, const std::string& p, const VitsDims& d) {
  const uint64_t head_dim = d.hidden / d.heads;
  if (d.window) {
    t.add(p + "attention.emb_rel_k", {1, 2 * d.window + 1, head_dim});
    t.add(p + "attention.emb_rel_v", {1, 2 * d.window + 1, head_dim});
  }
  blocks::Attention a;
  a.hidden = d.hidden;
  a.heads = a.kv_heads = d.heads;
  a.head_dim = head_dim;
  a.qkv_bias = a.o_bias = d.bias;
  a.o = "out_proj";
  a.key_first = true;
  blocks::attention(t, p + "attention", a);
  blocks::norm(t, p + "layer_norm", d.hidden, true);
  blocks::conv1d(t, p + "feed_forward.conv_1", d.hidden, d.ffn, d.ffn_kernel);
  blocks::conv1d(t, p + "feed_forward.conv_2", d.ffn, d.hidden, d.ffn_kernel);
  blocks::norm(t, p + "final_layer_norm", d.hidden, true);
}

// VitsTextEncoder: the token table, the layers (the record's encoder stack) and a 1x1 projection to the
// prior's means and log-variances.
void vits_text_encoder(ModelTemplate& t, const VitsDims& d) {
  blocks::embedding(t, "text_encoder.embed_tokens.weight", d.vocab, d.hidden);
  StackSpec& s = t.arch.add_stack(StackRole::Encoder, "text_encoder.encoder.layers", d.hidden);
  for (uint64_t i = 0; i < d.layers; ++i) {
    vits_encoder_layer(t, s.path + "." + std::to_string(i) + ".", d);
    s.layers.push_back(attention_dense_layer());
  }
  blocks::conv1d(t, "text_encoder.project", d.hidden, 2 * d.flow, 1);
}

// VitsWaveNet: per layer a dilated conv to twice the width and a 1x1 res/skip conv (the last one only the
// skip half), all weight-normed; with speaker embeddings, one 1x1 conditioning conv for all layers. The two
// ModuleLists are registered (empty) before cond_layer, so their convs come first, list by list.
void vits_wavenet(ModelTemplate& t, const std::string& p, uint64_t layers, const VitsDims& d) {
  for (uint64_t i = 0; i < layers; ++i)
    blocks::weight_normed_conv1d(t, p + "in_layers." + std::to_string(i), d.hidden, 2 * d.hidden,
                                 d.wavenet_kernel);
  for (uint64_t i = 0; i < layers; ++i)
    blocks::weight_normed_conv1d(t, p + "res_skip_layers." + std::to_string(i), d.hidden,
                                 i + 1 < layers ? 2 * d.hidden : d.hidden, 1);
  if (d.speaker_width)
    blocks::weight_normed_conv1d(t, p + "cond_layer", d.speaker_width, 2 * d.hidden * layers, 1);
}

// VitsResidualCouplingBlock: prior_encoder_num_flows affine-coupling layers over half the flow's channels.
void vits_flow(ModelTemplate& t, const VitsDims& d) {
  const uint64_t half = d.flow / 2;
  for (uint64_t i = 0; i < d.prior_flows; ++i) {
    const std::string p = "flow.flows." + std::to_string(i) + ".";
    blocks::conv1d(t, p + "conv_pre", half, d.hidden, 1);
    vits_wavenet(t, p + "wavenet.", d.prior_wavenet_layers, d);
    blocks::conv1d(t, p + "conv_post", d.hidden, half, 1);
  }
}

// VitsHifiGan: the HiFi-GAN generator over the flow's channels, conv_post to one channel without a bias, and
// the speaker conditioning.
void vits_hifigan(ModelTemplate& t, const VitsDims& d) {
  const uint64_t channels = hifigan_generator(t, "decoder.", d.flow, d.hifigan);
  t.add("decoder.conv_post.weight", {1, channels, 7});
  if (d.speaker_width) blocks::conv1d(t, "decoder.cond", d.speaker_width, d.hifigan.upsample_initial, 1);
}

// VitsDilatedDepthSeparableConv: per layer a depthwise conv (dilation kernel^i), a pointwise conv and two
// LayerNorms, registered list by list.
void vits_separable_convs(ModelTemplate& t, const std::string& p, const VitsDims& d) {
  for (uint64_t i = 0; i < d.separable_layers; ++i)
    blocks::conv1d(t, p + "convs_dilated." + std::to_string(i), d.hidden, d.hidden, d.duration_kernel,
                   d.hidden);
  for (uint64_t i = 0; i < d.separable_layers; ++i)
    blocks::conv1d(t, p + "convs_pointwise." + std::to_string(i), d.hidden, d.hidden, 1);
  for (const char* norms : {"norms_1.", "norms_2."})
    for (uint64_t i = 0; i < d.separable_layers; ++i)
      blocks::norm(t, p + norms + std::to_string(i), d.hidden, true);
}

// A flow list of VitsStochasticDurationPredictor: an elementwise affine (translate, log_scale), then
// duration_predictor_num_flows spline flows, each projecting to 3 * bins - 1 spline parameters per channel.
void vits_duration_flows(ModelTemplate& t, const std::string& p, const VitsDims& d) {
  t.add(p + "0.translate", {d.separable_channels, 1});
  t.add(p + "0.log_scale", {d.separable_channels, 1});
  const uint64_t half = d.separable_channels / 2;
  for (uint64_t i = 1; i <= d.duration_flows; ++i) {
    const std::string f = p + std::to_string(i) + ".";
    blocks::conv1d(t, f + "conv_pre", half, d.hidden, 1);
    vits_separable_convs(t, f + "conv_dds.", d);
    blocks::conv1d(t, f + "conv_proj", d.hidden, half * (3 * d.flow_bins - 1), 1);
  }
}

void vits_duration_predictor(ModelTemplate& t, const VitsDims& d) {
  const std::string p = "duration_predictor.";
  if (!d.stochastic_duration) {  // VitsDurationPredictor: two convs with LayerNorms and a projection
    blocks::conv1d(t, p + "conv_1", d.hidden, d.duration_filter, d.duration_kernel);
    blocks::norm(t, p + "norm_1", d.duration_filter, true);
    blocks::conv1d(t, p + "conv_2", d.duration_filter, d.duration_filter, d.duration_kernel);
    blocks::norm(t, p + "norm_2", d.duration_filter, true);
    blocks::conv1d(t, p + "proj", d.duration_filter, 1, 1);
    if (d.speaker_width) blocks::conv1d(t, p + "cond", d.speaker_width, d.hidden, 1);
    return;
  }
  // The stochastic predictor works at the text encoder's width (not duration_predictor_filter_channels).
  blocks::conv1d(t, p + "conv_pre", d.hidden, d.hidden, 1);
  blocks::conv1d(t, p + "conv_proj", d.hidden, d.hidden, 1);
  vits_separable_convs(t, p + "conv_dds.", d);
  if (d.speaker_width) blocks::conv1d(t, p + "cond", d.speaker_width, d.hidden, 1);
  vits_duration_flows(t, p + "flows.", d);
  blocks::conv1d(t, p + "post_conv_pre", 1, d.hidden, 1);
  blocks::conv1d(t, p + "post_conv_proj", d.hidden, d.hidden, 1);
  vits_separable_convs(t, p + "post_conv_dds.", d);
  vits_duration_flows(t, p + "post_flows.", d);
}

void vits_posterior_encoder(ModelTemplate& t, const VitsDims& d) {
  blocks::conv1d(t, "posterior_encoder.conv_pre", d.spectrogram_bins, d.hidden, 1);
  vits_wavenet(t, "posterior_encoder.wavenet.", d.posterior_wavenet_layers, d);
  blocks::conv1d(t, "posterior_encoder.conv_proj", d.hidden, 2 * d.flow, 1);
}

void fill_vits_record(const ModelConfig& cfg, const std::string& cls, const VitsDims& d, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = d.hidden;
  a.num_layers = d.layers;
  a.vocab_size = d.vocab;
  a.num_attention_heads = a.num_key_value_heads = d.heads;
  a.head_dim = d.hidden / d.heads;
  a.intermediate_size = d.ffn;
  a.post_norm = true;
  a.activation = cfg.string_or("hidden_act", "relu");
  a.position = PositionKind::Relative;
  a.attention_bias = d.bias;
  a.mlp_bias = true;
  a.tie_word_embeddings = false;  // VitsModel ties nothing
}

}  // namespace

void build_vits(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "VitsModel");
  supported_task(cfg, cls, "Vits", {"Model"});  // the only model class of VitsConfig
  const VitsDims d = read_vits(cfg);
  fill_vits_record(cfg, cls, d, t);
  // VitsModel registers its modules in this order; it has no buffers.
  vits_text_encoder(t, d);
  vits_flow(t, d);
  vits_hifigan(t, d);
  vits_duration_predictor(t, d);
  if (d.speakers > 1) blocks::embedding(t, "embed_speaker.weight", d.speakers, d.speaker_width);
  vits_posterior_encoder(t, d);
}

}  // namespace ma::families
