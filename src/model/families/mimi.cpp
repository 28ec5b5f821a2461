// Mimi (MimiModel; kyutai/mimi), Kyutai's streaming neural audio codec: the codec_model inside Kyutai's
// speech-to-text model. A SEANet encoder of plain causal convolutions (no weight norm, unlike EnCodec's, and
// no LSTM) brings 24 kHz audio to hidden_size-wide frames; a transformer of pre-norm layers with layer scales
// (encoder_transformer) contextualises them; a strided convolution brings them to frame_rate when that
// differs from the SEANet's; a split residual vector quantizer (num_semantic_quantizers semantic codebooks,
// the rest acoustic, each side projecting hidden_size to vector_quantization_hidden_dimension and back) turns
// them into codes. The decoder mirrors it: a grouped transposed convolution, decoder_transformer, a SEANet
// decoder. Codebooks are persistent buffers (initialized, cluster_usage, embed_sum), not parameters.
#include <cmath>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/speech_asr.h"

namespace ma::families {
namespace {

// MimiConfig's fields; the defaults are the class's (kyutai/mimi's).
struct MimiDims {
  uint64_t channels = 1, hidden = 512, filters = 64, residual_layers = 1, kernel = 7, last_kernel = 3,
           residual_kernel = 3, growth = 2, compress = 2, codebook_size = 2048, codebook_dim = 256,
           quantizers = 32, semantic = 1, vq_hidden = 256, upsample_groups = 512, layers = 8, inter = 2048,
           heads = 8, kv_heads = 8, head_dim = 64, window = 250;
  std::vector<uint64_t> ratios = {8, 6, 5, 4};
  bool conv_shortcut = false, attention_bias = false;
  uint64_t resample_kernel = 0;  // 0: frame_rate is the SEANet's own, no down/upsampling
};

MimiDims read_mimi(const ModelConfig& cfg) {
  MimiDims d;
  d.channels = cfg.dim_or("audio_channels", d.channels);
  d.hidden = cfg.dim_or("hidden_size", d.hidden);
  d.filters = cfg.dim_or("num_filters", d.filters);
  d.residual_layers = cfg.count_or("num_residual_layers", d.residual_layers);
  d.kernel = cfg.dim_or("kernel_size", d.kernel);
  d.last_kernel = cfg.dim_or("last_kernel_size", d.last_kernel);
  d.residual_kernel = cfg.dim_or("residual_kernel_size", d.residual_kernel);
  d.growth = cfg.dim_or("dilation_growth_rate", d.growth);
  d.compress = cfg.dim_or("compress", d.compress);
  d.codebook_size = cfg.dim_or("codebook_size", d.codebook_size);
  // codebook_dim defaults to 256; an explicit null means hidden_size.
  const json::Value* codebook_dim = cfg.raw("codebook_dim");
  d.codebook_dim =
      codebook_dim && codebook_dim->is_null() ? d.hidden : cfg.dim_or("codebook_dim", d.codebook_dim);
  d.quantizers = cfg.dim_or("num_quantizers", d.quantizers);
  d.semantic = cfg.count_or("num_semantic_quantizers", d.semantic);
  d.vq_hidden = cfg.dim_or("vector_quantization_hidden_dimension", d.vq_hidden);
  d.upsample_groups = cfg.dim_or("upsample_groups", d.upsample_groups);
  d.layers = cfg.layers_or("num_hidden_layers", d.layers, 0);
  d.inter = cfg.dim_or("intermediate_size", d.inter);
  d.heads = cfg.dim_or("num_attention_heads", d.heads);
  d.kv_heads = cfg.dim_or("num_key_value_heads", d.kv_heads);
  // MimiAttention raises unless the heads divide the width; head_dim: `head_dim or hidden // heads`.
  const uint64_t split = split_heads(cfg, "num_attention_heads", d.hidden, d.heads);
  d.head_dim = cfg.count_or("head_dim", 0) ? cfg.count_or("head_dim", 0) : split;
  d.window = window_or_none(cfg, d.window);
  d.conv_shortcut = cfg.flag_or("use_conv_shortcut", false);
  d.attention_bias = cfg.flag_or("attention_bias", false);
  d.ratios = cfg.dims_or("upsampling_ratios", d.ratios);
  // MimiConfig and MimiModel raise on these.
  if (d.semantic >= d.quantizers)
    cfg.fail("num_semantic_quantizers",
             "must be lower than num_quantizers (" + std::to_string(d.quantizers) + ")");
  if ((d.codebook_size & (d.codebook_size - 1)) != 0) cfg.fail("codebook_size", "must be a power of 2");
  if (d.ratios.size() > 26 || (d.filters << d.ratios.size()) > ModelConfig::kMaxValue)
    cfg.fail("upsampling_ratios", "doubles the channels past any real codec's");
  if (d.heads % d.kv_heads != 0)
    cfg.fail("num_key_value_heads", "must divide num_attention_heads (" + std::to_string(d.heads) + ")");
  // The SEANet's frame rate, ceil(sampling_rate / prod(upsampling_ratios)) (encodec_frame_rate); when
  // frame_rate differs, a convolution of kernel 2 * int(encodec_frame_rate / frame_rate) resamples.
  const double rate = static_cast<double>(cfg.dim_or("sampling_rate", 24000));
  double hop = 1;
  for (uint64_t r : d.ratios) hop *= static_cast<double>(r);
  const double seanet_rate = std::ceil(rate / hop), frame_rate = cfg.number_or("frame_rate", 12.5);
  if (!(frame_rate > 0)) cfg.fail("frame_rate", "must be positive");
  if (frame_rate != seanet_rate) {
    const double k = std::trunc(seanet_rate / frame_rate);
    if (!(k >= 1 && k <= static_cast<double>(ModelConfig::kMaxValue)))
      cfg.fail("frame_rate", "must not exceed the SEANet's frame rate of " + std::to_string(seanet_rate));
    d.resample_kernel = 2 * static_cast<uint64_t>(k);
    if (d.hidden % d.upsample_groups != 0)
      cfg.fail("upsample_groups", "must divide hidden_size (" + std::to_string(d.hidden) + ")");
  }
  return d;
}

// MimiConv1d / MimiConvTranspose1d: the torch convolution as `p`.conv (its index buffers are not saved).
void mimi_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel,
               bool bias = true) {
  t.add(p + ".conv.weight", {out, in, kernel});
  if (bias) t.add(p + ".conv.bias", {out});
}
void mimi_transposed_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out,
                          uint64_t kernel) {
  blocks::transposed_conv1d(t, p + ".conv", in, out, kernel);
}

// MimiResnetBlock: [ELU, conv residual_kernel_size to dim / compress, ELU, conv 1 back] as block.1 and
// block.3, and a 1-wide convolution shortcut with use_conv_shortcut.
void mimi_resnet_block(ModelTemplate& t, const std::string& p, uint64_t dim, const MimiDims& d) {
  const uint64_t hidden = dim / d.compress;
  mimi_conv(t, p + ".block.1", dim, hidden, d.residual_kernel);
  mimi_conv(t, p + ".block.3", hidden, dim, 1);
  if (d.conv_shortcut) mimi_conv(t, p + ".shortcut", dim, dim, 1);
}

// The SEANet encoder's layers ModuleList, ELUs counted in the numbering.
void mimi_seanet_encoder(ModelTemplate& t, const std::string& p, const MimiDims& d) {
  uint64_t index = 0;
  const auto next = [&] { return p + ".layers." + std::to_string(index++); };
  mimi_conv(t, next(), d.channels, d.filters, d.kernel);
  uint64_t width = d.filters;
  for (auto r = d.ratios.rbegin(); r != d.ratios.rend(); ++r) {
    for (uint64_t j = 0; j < d.residual_layers; ++j) mimi_resnet_block(t, next(), width, d);
    ++index;  // ELU
    mimi_conv(t, next(), width, 2 * width, 2 * *r);
    width *= 2;
  }
  ++index;  // ELU
  mimi_conv(t, next(), width, d.hidden, d.last_kernel);
}

// The SEANet decoder, mirrored: transposed convolutions halve the channels before each ratio's blocks.
void mimi_seanet_decoder(ModelTemplate& t, const std::string& p, const MimiDims& d) {
  uint64_t index = 0;
  const auto next = [&] { return p + ".layers." + std::to_string(index++); };
  uint64_t width = d.filters << d.ratios.size();
  mimi_conv(t, next(), d.hidden, width, d.kernel);
  for (uint64_t r : d.ratios) {
    ++index;  // ELU
    mimi_transposed_conv(t, next(), width, width / 2, 2 * r);
    width /= 2;
    for (uint64_t j = 0; j < d.residual_layers; ++j) mimi_resnet_block(t, next(), width, d);
  }
  ++index;  // ELU
  mimi_conv(t, next(), d.filters, d.channels, d.last_kernel);
}

// MimiTransformerModel under `p`: layers of attention, a GELU MLP without biases, two LayerNorms and the
// two layer scales; recorded as an audio stack sliding over `window` frames.
void mimi_transformer(ModelTemplate& t, const std::string& p, const MimiDims& d) {
  blocks::Attention at;
  at.hidden = d.hidden;
  at.heads = d.heads;
  at.kv_heads = d.kv_heads;
  at.head_dim = d.head_dim;
  at.qkv_bias = at.o_bias = d.attention_bias;
  StackSpec& stack = t.arch.add_stack(StackRole::Audio, p + ".layers", d.hidden);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string l = p + ".layers." + std::to_string(i);
    blocks::attention(t, l + ".self_attn", at);
    blocks::linear(t, l + ".mlp.fc1", d.hidden, d.inter, false);
    blocks::linear(t, l + ".mlp.fc2", d.inter, d.hidden, false);
    blocks::norm(t, l + ".input_layernorm", d.hidden, true);
    blocks::norm(t, l + ".post_attention_layernorm", d.hidden, true);
    t.add(l + ".self_attn_layer_scale.scale", {d.hidden});
    t.add(l + ".mlp_layer_scale.scale", {d.hidden});
    LayerSpec s;
    s.attention.kind = attention_kind_of(d.heads, d.kv_heads);
    s.attention.heads = d.heads;
    s.attention.kv_heads = d.kv_heads;
    s.attention.head_dim = d.head_dim;
    set_window(s.attention, d.window);
    s.ffn.gated = false;
    s.ffn.intermediate = d.inter;
    stack.layers.push_back(s);
  }
}

// MimiResidualVectorQuantizer: `count` codebooks, then the projections when the quantizer's width differs.
void mimi_rvq(ModelTemplate& t, const std::string& p, uint64_t count, const MimiDims& d) {
  for (uint64_t k = 0; k < count; ++k) {
    const std::string c = p + ".layers." + std::to_string(k) + ".codebook.";
    t.add(c + "initialized", {1}).kind = TensorKind::Buffer;
    t.add(c + "cluster_usage", {d.codebook_size}).kind = TensorKind::Buffer;
    t.add(c + "embed_sum", {d.codebook_size, d.codebook_dim}).kind = TensorKind::Buffer;
  }
  if (d.vq_hidden == d.hidden) return;
  t.add(p + ".input_proj.weight", {d.vq_hidden, d.hidden, 1});
  t.add(p + ".output_proj.weight", {d.hidden, d.vq_hidden, 1});
}

}  // namespace

void mimi_model(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const MimiDims d = read_mimi(cfg);
  mimi_seanet_encoder(t, prefix + "encoder", d);
  mimi_transformer(t, prefix + "encoder_transformer", d);
  if (d.resample_kernel) {
    mimi_conv(t, prefix + "downsample", d.hidden, d.hidden, d.resample_kernel, false);
    t.add(prefix + "upsample.conv.weight", {d.hidden, d.hidden / d.upsample_groups, d.resample_kernel});
  }
  mimi_transformer(t, prefix + "decoder_transformer", d);
  mimi_seanet_decoder(t, prefix + "decoder", d);
  mimi_rvq(t, prefix + "quantizer.semantic_residual_vector_quantizer", d.semantic, d);
  mimi_rvq(t, prefix + "quantizer.acoustic_residual_vector_quantizer", d.quantizers - d.semantic, d);
}

}  // namespace ma::families
