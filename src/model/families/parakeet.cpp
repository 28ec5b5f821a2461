// Parakeet (parakeet_encoder, parakeet_ctc; NVIDIA's parakeet-ctc-0.6b / -1.1b): NeMo's FastConformer.
// ParakeetEncoder subsamples the log-mel frames by subsampling_factor through strided 2-D convolutions (one
// plain, then depthwise + pointwise pairs), flattens channels x remaining mel bins into a linear, and runs
// macaron Conformer blocks: a half-step feed-forward, Transformer-XL attention with relative positions (a
// bias-free relative_k_proj over sinusoidal position vectors and two learned per-head biases, bias_u and
// bias_v), a convolution module (pointwise convolution to a GLU, depthwise convolution, a BatchNorm whose
// running statistics are saved, pointwise convolution), a second half-step feed-forward and a LayerNorm.
// ParakeetForCTC labels each frame with a kernel-1 Conv1d (NeMo's decoding layer).
#include <bit>
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/speech_asr.h"

namespace ma::families {
namespace {

// ParakeetEncoderConfig's fields; the defaults are the class's (parakeet-ctc-1.1b's width, 24 layers).
struct ParakeetEncoderDims {
  uint64_t hidden = 1024, layers = 24, heads = 8, head_dim = 128, intermediate = 4096;
  uint64_t conv_kernel = 9, subsampling_factor = 8, subsampling_channels = 256, mel_bins = 80;
  uint64_t subsampling_kernel = 3, subsampling_stride = 2;
  bool attention_bias = true, convolution_bias = true;
};

ParakeetEncoderDims read_parakeet_encoder(const ModelConfig& e) {
  ParakeetEncoderDims d;
  d.hidden = e.dim_or("hidden_size", d.hidden);
  d.layers = e.layers_or("num_hidden_layers", d.layers, 0);
  d.heads = e.dim_or("num_attention_heads", d.heads);
  // ParakeetEncoderAttention: getattr(config, "head_dim", hidden_size // num_attention_heads).
  d.head_dim =
      e.has("head_dim") ? e.dim("head_dim") : split_heads(e, "num_attention_heads", d.hidden, d.heads);
  d.intermediate = e.dim_or("intermediate_size", d.intermediate);
  d.conv_kernel = e.dim_or("conv_kernel_size", d.conv_kernel);
  // ParakeetEncoderConfig raises for an even kernel ('SAME' padding needs an odd one).
  if (d.conv_kernel % 2 == 0) e.fail("conv_kernel_size", "must be odd");
  d.subsampling_factor = e.dim_or("subsampling_factor", d.subsampling_factor);
  d.subsampling_channels = e.dim_or("subsampling_conv_channels", d.subsampling_channels);
  d.mel_bins = e.dim_or("num_mel_bins", d.mel_bins);
  d.subsampling_kernel = e.dim_or("subsampling_conv_kernel_size", d.subsampling_kernel);
  d.subsampling_stride = e.dim_or("subsampling_conv_stride", d.subsampling_stride);
  d.attention_bias = e.flag_or("attention_bias", d.attention_bias);
  d.convolution_bias = e.flag_or("convolution_bias", d.convolution_bias);
  return d;
}

void parakeet_batch_norm(ModelTemplate& t, const std::string& p, uint64_t channels) {
  blocks::norm(t, p, channels, true);
  for (const char* b : {".running_mean", ".running_var"}) t.add(p + b, {channels}).kind = TensorKind::Buffer;
  t.add(p + ".num_batches_tracked", {}).kind = TensorKind::Buffer;
}

void parakeet_feed_forward(ModelTemplate& t, const std::string& p, const ParakeetEncoderDims& d) {
  blocks::linear(t, p + ".linear1", d.hidden, d.intermediate, d.attention_bias);
  blocks::linear(t, p + ".linear2", d.intermediate, d.hidden, d.attention_bias);
}

// The attention's own bias_u / bias_v come before its Linears (named_parameters lists a module's own
// parameters first).
void parakeet_attention(ModelTemplate& t, const std::string& p, const ParakeetEncoderDims& d) {
  const uint64_t inner = d.heads * d.head_dim;
  t.add(p + ".bias_u", {d.heads, d.head_dim});
  t.add(p + ".bias_v", {d.heads, d.head_dim});
  blocks::linear(t, p + ".q_proj", d.hidden, inner, d.attention_bias);
  blocks::linear(t, p + ".k_proj", d.hidden, inner, d.attention_bias);
  blocks::linear(t, p + ".v_proj", d.hidden, inner, d.attention_bias);
  blocks::linear(t, p + ".o_proj", inner, d.hidden, d.attention_bias);
  blocks::linear(t, p + ".relative_k_proj", d.hidden, inner, false);
}

// A Conv1d whose bias follows convolution_bias: weight [out, in / groups, kernel].
void parakeet_conv1d(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel,
                     uint64_t groups, bool bias) {
  t.add(p + ".weight", {out, in / groups, kernel});
  if (bias) t.add(p + ".bias", {out});
}

void parakeet_convolution(ModelTemplate& t, const std::string& p, const ParakeetEncoderDims& d) {
  const uint64_t h = d.hidden;
  parakeet_conv1d(t, p + ".pointwise_conv1", h, 2 * h, 1, 1, d.convolution_bias);
  parakeet_conv1d(t, p + ".depthwise_conv", h, h, d.conv_kernel, h, d.convolution_bias);
  parakeet_batch_norm(t, p + ".norm", h);
  parakeet_conv1d(t, p + ".pointwise_conv2", h, h, 1, 1, d.convolution_bias);
}

// ParakeetEncoderSubsamplingConv2D under `p` ("subsampling"): int(log2(subsampling_factor)) strided stages,
// the first a Conv2d from one channel, each later one a depthwise and a pointwise Conv2d, with ReLUs between
// them taking places in the same nn.ModuleList (hence layers.0, 2, 3, 5, 6, ...).
void parakeet_subsampling(const ModelConfig& e, ModelTemplate& t, const std::string& p,
                          const ParakeetEncoderDims& d) {
  const uint64_t stages = static_cast<uint64_t>(std::bit_width(d.subsampling_factor)) - 1;
  const uint64_t c = d.subsampling_channels, k = d.subsampling_kernel;
  t.add(p + ".layers.0.weight", {c, 1, k, k});
  t.add(p + ".layers.0.bias", {c});
  for (uint64_t i = 0; i + 1 < stages; ++i) {
    blocks::conv2d(t, p + ".layers." + std::to_string(2 + 3 * i), c, c, k, c);
    blocks::conv2d(t, p + ".layers." + std::to_string(3 + 3 * i), c, c, 1);
  }
  // out_length = num_mel_bins // stride ** stages: the mel bins left after every stride.
  uint64_t bins = d.mel_bins;
  for (uint64_t i = 0; i < stages && bins > 0; ++i) bins /= d.subsampling_stride;
  if (bins == 0)
    e.fail("num_mel_bins",
           "leaves no bins after subsampling (subsampling_conv_stride ** log2(subsampling_factor))");
  blocks::linear(t, p + ".linear", c * bins, d.hidden, true);
}

// ParakeetEncoder's tensors under `p` ("" or "encoder."), its blocks recorded as the encoder stack.
void parakeet_encoder(const ModelConfig& e, ModelTemplate& t, const std::string& p,
                      const ParakeetEncoderDims& d) {
  parakeet_subsampling(e, t, p + "subsampling", d);
  // encode_positions holds only the non-persistent inv_freq buffer: nothing stored, nothing counted.
  StackSpec& stack = t.arch.add_stack(StackRole::Encoder, p + "layers", d.hidden);
  stack.mel_bins = d.mel_bins;
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    // Registration order: the four sub-modules, then the five LayerNorms.
    parakeet_feed_forward(t, l + "feed_forward1", d);
    parakeet_attention(t, l + "self_attn", d);
    parakeet_convolution(t, l + "conv", d);
    parakeet_feed_forward(t, l + "feed_forward2", d);
    for (const char* n :
         {"norm_feed_forward1", "norm_self_att", "norm_conv", "norm_feed_forward2", "norm_out"})
      blocks::norm(t, l + n, d.hidden, true);
    LayerSpec s = attention_dense_layer();
    s.attention.heads = s.attention.kv_heads = d.heads;
    s.attention.head_dim = d.head_dim;
    s.ffn.gated = false;
    s.ffn.intermediate = d.intermediate;
    stack.layers.push_back(s);
  }
}

void fill_parakeet_record(ModelTemplate& t, const std::string& cls, const ParakeetEncoderDims& d) {
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.hidden_size = d.hidden;
  a.num_layers = d.layers;
  a.num_attention_heads = a.num_key_value_heads = d.heads;
  a.head_dim = d.head_dim;
  a.intermediate_size = d.intermediate;
  a.attention_bias = a.mlp_bias = d.attention_bias;
  a.norm = NormKind::LayerNorm;
}

}  // namespace

void build_parakeet_encoder(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ParakeetEncoder");
  if (cls != "ParakeetEncoder") unsupported(cfg, cls);
  const ParakeetEncoderDims d = read_parakeet_encoder(cfg);
  fill_parakeet_record(t, cls, d);
  parakeet_encoder(cfg, t, "", d);
}

void build_parakeet_ctc(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "ParakeetForCTC");
  if (cls != "ParakeetForCTC") unsupported(cfg, cls);
  // ParakeetCTCConfig builds ParakeetEncoderConfig() when encoder_config is absent.
  const ModelConfig e = sub_or_empty(cfg, "encoder_config");
  const ParakeetEncoderDims d = read_parakeet_encoder(e);
  fill_parakeet_record(t, cls, d);
  t.arch.vocab_size = cfg.dim_or("vocab_size", 1025);  // 1,024 SentencePiece tokens and the CTC blank
  parakeet_encoder(e, t, "encoder.", d);
  blocks::conv1d(t, "ctc_head", d.hidden, t.arch.vocab_size, 1);
}

}  // namespace ma::families
