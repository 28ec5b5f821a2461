// FastSpeech2Conformer (ESPnet's FastSpeech 2 with Conformer blocks: espnet/fastspeech2_conformer) and
// FastSpeech2ConformerWithHifiGan (the same model as `model` and its HiFi-GAN vocoder as `vocoder`). Phoneme
// embeddings go through a Conformer encoder; duration, pitch and energy predictors (convolutions with
// LayerNorms) expand the sequence to mel frames; a second Conformer, which transformers calls the decoder,
// refines them; SpeechT5's postnet stack predicts the mel spectrogram. The Conformer layers:
// relative-position self-attention (with the two learned biases of Transformer-XL), convolutional
// feed-forwards (macaron: one before the attention too), a convolution module whose BatchNorm keeps running
// statistics.
#include <string>

#include "model/blocks.h"
#include "model/families/audio_codecs_tts.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/speecht5.h"

namespace ma::families {
namespace {

struct Fs2ConformerStack {
  uint64_t layers = 4, heads = 2, linear_units = 1536, kernel = 7;
  bool normalize_before = false, concat_after = false;
};

struct Fs2Dims {
  uint64_t hidden = 384, ff_kernel = 3;  // positionwise_conv_kernel_size
  bool macaron = true, cnn = true;
  Fs2ConformerStack encoder, decoder;
};

// The encoder's or decoder's fields (encoder_layers, encoder_num_attention_heads, encoder_linear_units,
// encoder_kernel_size, encoder_concat_after): FastSpeech2ConformerConfig builds encoder_config /
// decoder_config from them. Kernels must be odd and the heads divide the width, or the config raises.
Fs2ConformerStack read_fs2_stack(const ModelConfig& cfg, const std::string& side, Fs2ConformerStack s,
                                 uint64_t hidden) {
  s.layers = cfg.count_or(side + "_layers", s.layers);
  s.heads = cfg.dim_or(side + "_num_attention_heads", s.heads);
  s.linear_units = cfg.dim_or(side + "_linear_units", s.linear_units);
  s.kernel = cfg.dim_or(side + "_kernel_size", s.kernel);
  s.concat_after = cfg.flag_or(side + "_concat_after", false);
  if (s.kernel % 2 == 0) cfg.fail(side + "_kernel_size", "must be odd");
  if (hidden % s.heads != 0) cfg.fail(side + "_num_attention_heads", "must divide hidden_size");
  return s;
}

// FastSpeech2ConformerPredictorLayer: a conv (`kernel` wide, with a bias), ReLU, a LayerNorm.
void fs2_predictor(ModelTemplate& t, const std::string& p, const ModelConfig& cfg, const std::string& name,
                   uint64_t hidden, uint64_t layers, uint64_t channels, uint64_t kernel) {
  if (kernel % 2 == 0) cfg.fail(name + "_kernel_size", "must be odd");
  for (uint64_t i = 0; i < layers; ++i) {
    const std::string l = p + "conv_layers." + std::to_string(i) + ".";
    blocks::conv1d(t, l + "conv", i ? channels : hidden, channels, kernel);
    blocks::norm(t, l + "layer_norm", channels, true);
  }
  blocks::linear(t, p + "linear", channels, 1, true);
}

// FastSpeech2ConformerMultiLayeredConv1d: the feed-forward as two convolutions.
void fs2_conv_feed_forward(ModelTemplate& t, const std::string& p, const Fs2Dims& d, uint64_t units) {
  blocks::conv1d(t, p + "conv1", d.hidden, units, d.ff_kernel);
  blocks::conv1d(t, p + "conv2", units, d.hidden, d.ff_kernel);
}

// FastSpeech2ConformerEncoderLayer, in registration order; the attention's own bias vectors come before its
// linears in the state_dict.
void fs2_conformer_layer(ModelTemplate& t, const std::string& p, const Fs2Dims& d,
                         const Fs2ConformerStack& s) {
  const uint64_t h = d.hidden;
  t.add(p + "self_attn.pos_bias_u", {s.heads, h / s.heads});
  t.add(p + "self_attn.pos_bias_v", {s.heads, h / s.heads});
  for (const char* proj : {"linear_q", "linear_k", "linear_v", "linear_out"})
    blocks::linear(t, p + "self_attn." + proj, h, h, true);
  blocks::linear(t, p + "self_attn.linear_pos", h, h, false);
  fs2_conv_feed_forward(t, p + "feed_forward.", d, s.linear_units);
  if (d.macaron) {
    fs2_conv_feed_forward(t, p + "feed_forward_macaron.", d, s.linear_units);
    blocks::norm(t, p + "ff_macaron_layer_norm", h, true);
  }
  if (d.cnn) {
    const std::string c = p + "conv_module.";
    blocks::conv1d(t, c + "pointwise_conv1", h, 2 * h, 1);
    blocks::conv1d(t, c + "depthwise_conv", h, h, s.kernel, h);
    blocks::norm(t, c + "norm", h, true);  // BatchNorm1d, its running statistics persistent buffers
    t.add(c + "norm.running_mean", {h}).kind = TensorKind::Buffer;
    t.add(c + "norm.running_var", {h}).kind = TensorKind::Buffer;
    t.add(c + "norm.num_batches_tracked", {}).kind = TensorKind::Buffer;
    blocks::conv1d(t, c + "pointwise_conv2", h, h, 1);
    blocks::norm(t, p + "conv_layer_norm", h, true);
    blocks::norm(t, p + "final_layer_norm", h, true);
  }
  blocks::norm(t, p + "ff_layer_norm", h, true);
  blocks::norm(t, p + "self_attn_layer_norm", h, true);
  if (s.concat_after) blocks::linear(t, p + "concat_linear", 2 * h, h, true);
}

void fs2_conformer(ModelTemplate& t, const std::string& p, const Fs2Dims& d, const Fs2ConformerStack& s) {
  for (uint64_t i = 0; i < s.layers; ++i)
    fs2_conformer_layer(t, p + "conformer_layers." + std::to_string(i) + ".", d, s);
}

// FastSpeech2ConformerModel under `p`.
void fastspeech2_conformer_model(const ModelConfig& cfg, ModelTemplate& t, const std::string& p) {
  Fs2Dims d;  // FastSpeech2ConformerConfig's defaults: espnet/fastspeech2_conformer
  d.hidden = cfg.dim_or("hidden_size", d.hidden);
  d.ff_kernel = cfg.dim_or("positionwise_conv_kernel_size", d.ff_kernel);
  if (d.ff_kernel % 2 == 0) cfg.fail("positionwise_conv_kernel_size", "must be odd");
  d.macaron = cfg.flag_or("use_macaron_style_in_conformer", true);
  d.cnn = cfg.flag_or("use_cnn_in_conformer", true);
  d.encoder = read_fs2_stack(cfg, "encoder", {}, d.hidden);
  d.decoder = read_fs2_stack(cfg, "decoder", {.kernel = 31}, d.hidden);
  const uint64_t h = d.hidden, mel = cfg.dim_or("num_mel_bins", 80);
  t.arch.hidden_size = h;

  // Language and speaker tables only with more than one of them; a projection mixing in a speaker
  // embedding when speaker_embed_dim is set (and not 0).
  const uint64_t languages = cfg.opt_count("num_languages").value_or(0);
  if (languages > 1) blocks::embedding(t, p + "language_id_embedding.weight", languages, h);
  const uint64_t speakers = cfg.opt_count("num_speakers").value_or(0);
  if (speakers > 1) blocks::embedding(t, p + "speaker_id_embedding.weight", speakers, h);
  const uint64_t speaker_embed = cfg.opt_count("speaker_embed_dim").value_or(0);
  if (speaker_embed) blocks::linear(t, p + "projection", h + speaker_embed, h, true);

  blocks::embedding(t, p + "encoder.embed.weight", cfg.dim_or("vocab_size", 78), h);
  fs2_conformer(t, p + "encoder.", d, d.encoder);
  fs2_predictor(t, p + "duration_predictor.", cfg, "duration_predictor", h,
                cfg.count_or("duration_predictor_layers", 2), cfg.dim_or("duration_predictor_channels", 256),
                cfg.dim_or("duration_predictor_kernel_size", 3));
  // Pitch and energy: a predictor, then a conv embedding the predicted curve (one channel) into the width.
  for (const char* v : {"pitch", "energy"}) {
    const std::string var = v;
    const bool pitch = var == "pitch";
    fs2_predictor(t, p + var + "_predictor.", cfg, var + "_predictor", h,
                  cfg.count_or(var + "_predictor_layers", pitch ? 5 : 2),
                  cfg.dim_or(var + "_predictor_channels", 256),
                  cfg.dim_or(var + "_predictor_kernel_size", pitch ? 5 : 3));
    const uint64_t embed_kernel = cfg.dim_or(var + "_embed_kernel_size", 1);
    if (embed_kernel % 2 == 0) cfg.fail(var + "_embed_kernel_size", "must be odd");
    blocks::conv1d(t, p + var + "_embed.conv", 1, h, embed_kernel);
  }
  fs2_conformer(t, p + "decoder.", d, d.decoder);
  blocks::linear(t, p + "speech_decoder_postnet.feat_out", h, mel * cfg.dim_or("reduction_factor", 1), true);
  speech_postnet_convs(cfg, t, p + "speech_decoder_postnet.", mel);
}

}  // namespace

void build_fastspeech2_conformer(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "FastSpeech2ConformerModel");
  supported_task(cfg, cls, "FastSpeech2Conformer", {"Model"});
  t.arch.architecture = cls;
  fastspeech2_conformer_model(cfg, t, "");
}

void build_fastspeech2_conformer_with_hifigan(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "FastSpeech2ConformerWithHifiGan");
  if (cls != "FastSpeech2ConformerWithHifiGan") unsupported(cfg, cls);  // the composite's only class
  t.arch.architecture = cls;
  // Absent sub-configs take their classes' defaults.
  fastspeech2_conformer_model(sub_or_empty(cfg, "model_config"), t, "model.");
  hifigan_vocoder(sub_or_empty(cfg, "vocoder_config"), t, "vocoder.", true);
}

}  // namespace ma::families
