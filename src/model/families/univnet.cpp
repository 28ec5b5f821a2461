// UnivNet (UnivNetModel, dg845/univnet-dev: Tortoise TTS's vocoder): a noise sequence widened by conv_pre,
// then per stage a transposed convolution upsampling it and residual blocks whose location-variable
// convolutions take their kernels and biases from a kernel predictor reading the mel spectrogram, and
// conv_post down to the waveform. The predicted kernels are activations, not parameters: the predictor's
// kernel_conv is what holds them, with in x out x kernel x layers output channels. Plain convolutions: the
// converted checkpoint was saved after remove_weight_norm.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/audio_codecs_tts.h"
#include "model/families/encoders_common.h"
#include "model/families/hifigan_generator.h"

namespace ma::families {
namespace {

struct UnivNetDims {
  uint64_t in_channels = 64, hidden = 32, mel_bins = 100;
  uint64_t predictor_blocks = 3, predictor_hidden = 64, predictor_kernel = 3;
  std::vector<uint64_t> kernels{3, 3, 3}, strides{8, 8, 4}, dilation_counts{4, 4, 4};
};

UnivNetDims read_univnet(const ModelConfig& cfg) {
  UnivNetDims d;  // UnivNetConfig's defaults: dg845/univnet-dev
  d.in_channels = cfg.dim_or("model_in_channels", d.in_channels);
  d.hidden = cfg.dim_or("model_hidden_channels", d.hidden);
  d.mel_bins = cfg.dim_or("num_mel_bins", d.mel_bins);
  d.predictor_blocks = cfg.count_or("kernel_predictor_num_blocks", d.predictor_blocks);
  d.predictor_hidden = cfg.dim_or("kernel_predictor_hidden_channels", d.predictor_hidden);
  d.predictor_kernel = cfg.dim_or("kernel_predictor_conv_size", d.predictor_kernel);
  d.kernels = cfg.dims_or("resblock_kernel_sizes", d.kernels);
  d.strides = cfg.dims_or("resblock_stride_sizes", d.strides);
  d.dilation_counts = hifigan_dilation_counts(cfg, d.dilation_counts);
  // UnivNetConfig raises unless the three lists are of one length (the number of stages).
  if (d.strides.size() != d.kernels.size())
    cfg.fail("resblock_stride_sizes", "must have as many entries as resblock_kernel_sizes");
  if (d.dilation_counts.size() != d.kernels.size())
    cfg.fail("resblock_dilation_sizes", "must have as many entries as resblock_kernel_sizes");
  // The kernel predictor's kernel_conv outputs hidden x 2 hidden x kernel x dilations channels per stage.
  for (size_t i = 0; i < d.kernels.size(); ++i)
    if (2.0 * static_cast<double>(d.hidden) * static_cast<double>(d.hidden) *
            static_cast<double>(d.kernels[i]) * static_cast<double>(d.dilation_counts[i]) >
        static_cast<double>(ModelConfig::kMaxValue))
      cfg.fail("model_hidden_channels", "makes the predicted kernels wider than any vocoder's");
  return d;
}

// UnivNetKernelPredictor for `layers` location-variable convolutions of kernel `kernel`: an input conv over
// the mel bins (kernel 5), residual blocks and the two heads. Its residual blocks are model_in_channels
// wide, whatever kernel_predictor_hidden_channels says (the same 64 in every config).
void univnet_kernel_predictor(ModelTemplate& t, const std::string& p, const UnivNetDims& d, uint64_t kernel,
                              uint64_t layers) {
  blocks::conv1d(t, p + "input_conv", d.mel_bins, d.predictor_hidden, 5);
  for (uint64_t b = 0; b < d.predictor_blocks; ++b) {
    const std::string r = p + "resblocks." + std::to_string(b) + ".";
    blocks::conv1d(t, r + "conv1", d.in_channels, d.in_channels, d.predictor_kernel);
    blocks::conv1d(t, r + "conv2", d.in_channels, d.in_channels, d.predictor_kernel);
  }
  const uint64_t out = 2 * d.hidden;  // the gated unit's two halves
  blocks::conv1d(t, p + "kernel_conv", d.predictor_hidden, d.hidden * out * kernel * layers,
                 d.predictor_kernel);
  blocks::conv1d(t, p + "bias_conv", d.predictor_hidden, out * layers, d.predictor_kernel);
}

}  // namespace

void build_univnet(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "UnivNetModel");
  supported_task(cfg, cls, "UnivNet", {"Model"});  // the only class of UnivNetConfig
  t.arch.architecture = cls;
  const UnivNetDims d = read_univnet(cfg);
  t.arch.hidden_size = d.mel_bins;  // the width of the frames it reads
  blocks::conv1d(t, "conv_pre", d.in_channels, d.hidden, 7);
  for (size_t i = 0; i < d.strides.size(); ++i) {
    const std::string p = "resblocks." + std::to_string(i) + ".";
    blocks::transposed_conv1d(t, p + "convt_pre", d.hidden, d.hidden, 2 * d.strides[i]);
    univnet_kernel_predictor(t, p + "kernel_predictor.", d, d.kernels[i], d.dilation_counts[i]);
    for (uint64_t j = 0; j < d.dilation_counts[i]; ++j)
      blocks::conv1d(t, p + "resblocks." + std::to_string(j) + ".conv", d.hidden, d.hidden, d.kernels[i]);
  }
  blocks::conv1d(t, "conv_post", d.hidden, 1, 7);
}

}  // namespace ma::families
