// EnCodec (EncodecModel), Meta's neural audio codec: a SEANet convolutional encoder (strided convolutions
// between residual blocks, then a two-layer LSTM) down to hidden_size-wide frames, a residual vector
// quantizer of num_quantizers codebooks, and the mirrored decoder (transposed convolutions) back to a
// waveform. MusicGen's audio_encoder is one (facebook/encodec_32khz).
#include <cmath>
#include <string>
#include <vector>

#include "core/json.h"
#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/speech_gen.h"

namespace ma::families {
namespace {

struct EncodecDims {
  uint64_t audio_channels = 1, hidden = 128, filters = 32, residual_layers = 1, kernel = 7, last_kernel = 7,
           residual_kernel = 3, compress = 2, lstm_layers = 2, codebook_size = 1024, codebook_dim = 128;
  std::vector<uint64_t> ratios = {8, 5, 4, 2};
  bool weight_norm = true;
  bool conv_shortcut = true;
  uint64_t quantizers = 0;
};

// Python's float floor division (CPython's float_floor_div), which EncodecConfig.num_quantizers applies to
// 1000 * target_bandwidths[-1]: exact where a plain std::floor(a / b) could round across an integer.
double encodec_python_floor_div(double a, double b) {
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
  if (div == 0) return 0;
  double floored = std::floor(div);
  if (div - floored > 0.5) floored += 1.0;
  return floored;
}

// EncodecConfig.num_quantizers: int(1000 * target_bandwidths[-1] // (frame_rate * codebook_nbits)), with
// frame_rate = ceil(sampling_rate / prod(upsampling_ratios)) (transformers 5; transformers 4 divided by
// frame_rate * 10, the same for the 1024-entry codebooks of encodec_24khz / 48khz).
uint64_t encodec_quantizers(const ModelConfig& cfg, const EncodecDims& d) {
  double bandwidth = 24.0;  // the last of the default (1.5, 3.0, 6.0, 12.0, 24.0)
  if (cfg.has("target_bandwidths")) {
    const json::Value* list = cfg.raw("target_bandwidths");
    if (!list->is_array() || list->items().empty() || !list->items().back().is_number())
      cfg.fail("target_bandwidths", "must be a non-empty list of numbers (the model reads its last entry)");
    bandwidth = list->items().back().as_double();
  }
  const uint64_t rate = cfg.dim_or("sampling_rate", 24000);
  uint64_t hop = 1;
  for (uint64_t r : d.ratios) hop = hop > rate ? hop : hop * r;  // past the rate, the frame rate is 1
  const double frame_rate =
      hop > rate ? 1.0 : std::ceil(static_cast<double>(rate) / static_cast<double>(hop));
  const double nbits = std::log2(static_cast<double>(d.codebook_size));  // exact: a power of two
  const double n = encodec_python_floor_div(1000.0 * bandwidth, frame_rate * nbits);
  if (!(n <= static_cast<double>(ModelConfig::kMaxValue)))
    cfg.fail("target_bandwidths", "implies more codebooks than any codec has");
  return n > 0 ? static_cast<uint64_t>(n) : 0;
}

EncodecDims read_encodec(const ModelConfig& cfg) {
  EncodecDims d;  // EncodecConfig's defaults: facebook/encodec_24khz
  d.audio_channels = cfg.dim_or("audio_channels", d.audio_channels);
  d.hidden = cfg.dim_or("hidden_size", d.hidden);
  d.filters = cfg.dim_or("num_filters", d.filters);
  d.residual_layers = cfg.count_or("num_residual_layers", d.residual_layers);
  d.kernel = cfg.dim_or("kernel_size", d.kernel);
  d.last_kernel = cfg.dim_or("last_kernel_size", d.last_kernel);
  d.residual_kernel = cfg.dim_or("residual_kernel_size", d.residual_kernel);
  d.compress = cfg.dim_or("compress", d.compress);
  d.lstm_layers = cfg.layers_or("num_lstm_layers", d.lstm_layers);  // nn.LSTM needs one layer at least
  d.codebook_size = cfg.dim_or("codebook_size", d.codebook_size);
  d.codebook_dim = cfg.dim_or("codebook_dim", d.hidden);  // null: hidden_size
  d.conv_shortcut = cfg.flag_or("use_conv_shortcut", true);
  d.ratios = cfg.dims_or("upsampling_ratios", d.ratios);
  const std::string norm = cfg.string_or("norm_type", "weight_norm");
  if (norm != "weight_norm" && norm != "time_group_norm")
    cfg.fail("norm_type", "must be \"weight_norm\" or \"time_group_norm\"");
  d.weight_norm = norm == "weight_norm";
  // EncodecModel raises unless the codebook size is a power of two (bits per code).
  if ((d.codebook_size & (d.codebook_size - 1)) != 0) cfg.fail("codebook_size", "must be a power of 2");
  // EncodecConvTranspose1d raises on a trim ratio other than 1 without causal convolutions.
  if (!cfg.flag_or("use_causal_conv", true) && cfg.number_or("trim_right_ratio", 1.0) != 1.0)
    cfg.fail("trim_right_ratio", "must be 1.0 unless use_causal_conv");
  // The deepest level is num_filters x 2^len(upsampling_ratios) channels wide.
  if (d.ratios.size() > 26 || (d.filters << d.ratios.size()) > ModelConfig::kMaxValue)
    cfg.fail("upsampling_ratios", "doubles the channels past any real codec's");
  if (d.filters / d.compress == 0) cfg.fail("compress", "must not exceed num_filters");
  d.quantizers = encodec_quantizers(cfg, d);
  return d;
}

// EncodecConv1d / EncodecConvTranspose1d under `p` ("encoder.layers.0"): weight-normed (the conv's own bias,
// then the parametrization's magnitude g [weight.shape[0], 1, 1] and direction v; the Hub's checkpoints keep
// torch's old weight_g / weight_v names, which transformers 5 renames on load) or a plain conv followed by a
// GroupNorm of one group.
void encodec_conv(ModelTemplate& t, const std::string& p, uint64_t in, uint64_t out, uint64_t kernel,
                  const EncodecDims& d, bool transposed = false) {
  if (!d.weight_norm) {
    if (transposed)
      blocks::transposed_conv1d(t, p + ".conv", in, out, kernel);
    else
      blocks::conv1d(t, p + ".conv", in, out, kernel);
    blocks::norm(t, p + ".norm", out, true);
    return;
  }
  t.add(p + ".conv.bias", {out});
  TemplateTensor& g = t.add(p + ".conv.parametrizations.weight.original0", {transposed ? in : out, 1, 1});
  g.disk.push_back({p + ".conv.weight_g", g.shape});
  TemplateTensor& v = t.add(p + ".conv.parametrizations.weight.original1",
                            {transposed ? in : out, transposed ? out : in, kernel});
  v.disk.push_back({p + ".conv.weight_v", v.shape});
}

// EncodecResnetBlock: ELU, a residual_kernel_size conv down to dim / compress channels, ELU, a 1-wide conv
// back (block.1, block.3), and a 1-wide conv shortcut unless use_conv_shortcut is false.
void encodec_resnet_block(ModelTemplate& t, const std::string& p, uint64_t dim, const EncodecDims& d) {
  const uint64_t hidden = dim / d.compress;
  encodec_conv(t, p + ".block.1", dim, hidden, d.residual_kernel, d);
  encodec_conv(t, p + ".block.3", hidden, dim, 1, d);
  if (d.conv_shortcut) encodec_conv(t, p + ".shortcut", dim, dim, 1, d);
}

// EncodecLSTM: nn.LSTM(dim, dim, num_lstm_layers), torch's four tensors per layer.
void encodec_lstm(ModelTemplate& t, const std::string& p, uint64_t dim, const EncodecDims& d) {
  for (uint64_t l = 0; l < d.lstm_layers; ++l) {
    const std::string n = std::to_string(l);
    t.add(p + ".lstm.weight_ih_l" + n, {4 * dim, dim});
    t.add(p + ".lstm.weight_hh_l" + n, {4 * dim, dim});
    t.add(p + ".lstm.bias_ih_l" + n, {4 * dim});
    t.add(p + ".lstm.bias_hh_l" + n, {4 * dim});
  }
}

// EncodecEncoder's layers ModuleList, ELUs included in the numbering: a conv, then per ratio (reversed) the
// residual blocks, an ELU and a strided conv doubling the channels; the LSTM, an ELU and the last conv.
void encodec_encoder(ModelTemplate& t, const std::string& p, const EncodecDims& d) {
  uint64_t index = 0;
  const auto next = [&] { return p + "layers." + std::to_string(index++); };
  encodec_conv(t, next(), d.audio_channels, d.filters, d.kernel, d);
  uint64_t width = d.filters;
  for (auto r = d.ratios.rbegin(); r != d.ratios.rend(); ++r) {
    for (uint64_t j = 0; j < d.residual_layers; ++j) encodec_resnet_block(t, next(), width, d);
    ++index;  // ELU
    encodec_conv(t, next(), width, 2 * width, 2 * *r, d);
    width *= 2;
  }
  encodec_lstm(t, next(), width, d);
  ++index;  // ELU
  encodec_conv(t, next(), width, d.hidden, d.last_kernel, d);
}

// EncodecDecoder's mirror image: a conv up to the deepest width, the LSTM, then per ratio an ELU, a
// transposed conv halving the channels and the residual blocks; an ELU and the last conv to the waveform.
void encodec_decoder(ModelTemplate& t, const std::string& p, const EncodecDims& d) {
  uint64_t index = 0;
  const auto next = [&] { return p + "layers." + std::to_string(index++); };
  uint64_t width = d.filters << d.ratios.size();
  encodec_conv(t, next(), d.hidden, width, d.kernel, d);
  encodec_lstm(t, next(), width, d);
  for (uint64_t r : d.ratios) {
    ++index;  // ELU
    encodec_conv(t, next(), width, width / 2, 2 * r, d, true);
    width /= 2;
    for (uint64_t j = 0; j < d.residual_layers; ++j) encodec_resnet_block(t, next(), width, d);
  }
  ++index;  // ELU
  encodec_conv(t, next(), d.filters, d.audio_channels, d.last_kernel, d);
}

}  // namespace

void encodec_model(const ModelConfig& cfg, const std::string& prefix, ModelTemplate& t) {
  const EncodecDims d = read_encodec(cfg);
  encodec_encoder(t, prefix + "encoder.", d);
  encodec_decoder(t, prefix + "decoder.", d);
  // The codebooks are EMA-updated buffers (persistent, in every checkpoint), not parameters: inited,
  // cluster_size, embed (the code vectors) and embed_avg per quantizer.
  for (uint64_t q = 0; q < d.quantizers; ++q) {
    const std::string c = prefix + "quantizer.layers." + std::to_string(q) + ".codebook.";
    t.add(c + "inited", {1}).kind = TensorKind::Buffer;
    t.add(c + "cluster_size", {d.codebook_size}).kind = TensorKind::Buffer;
    t.add(c + "embed", {d.codebook_size, d.codebook_dim}).kind = TensorKind::Buffer;
    t.add(c + "embed_avg", {d.codebook_size, d.codebook_dim}).kind = TensorKind::Buffer;
  }
}

void build_encodec(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "EncodecModel");
  supported_task(cfg, cls, "Encodec", {"Model"});  // the only class of EncodecConfig
  t.arch.architecture = cls;
  t.arch.hidden_size = cfg.dim_or("hidden_size", 128);  // the width of the frames the codebooks quantize
  encodec_model(cfg, "", t);
}

}  // namespace ma::families
