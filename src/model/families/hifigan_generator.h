// The HiFi-GAN generator transformers builds for VITS (VitsHifiGan, vits.cpp) and SpeechT5 (SpeechT5HifiGan,
// speecht5_hifigan.cpp): conv_pre, transposed convolutions that halve the channels stage by stage, and per
// stage one multi-receptive-field residual block per kernel. Plain convolutions: transformers applies weight
// norm only when asked, for training. What follows the last stage (conv_post, VITS' speaker conditioning)
// differs, so each family adds it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// The config fields shaping the generator, holding the family config class's defaults until read.
struct HifiGanDims {
  uint64_t upsample_initial = 512;  // upsample_initial_channel
  std::vector<uint64_t> upsample_rates, upsample_kernels;
  std::vector<uint64_t> resblock_kernels;
  std::vector<uint64_t> resblock_dilation_counts;  // how many dilations each MRF kernel lists
};
// resblock_dilation_sizes (one list of dilations per residual-block kernel) as the lists' lengths, which are
// all that shape the weights (a block has one convolution, or pair, per dilation); `dflt` when absent.
// UnivNet's config spells its lists the same.
std::vector<uint64_t> hifigan_dilation_counts(const ModelConfig& cfg, std::vector<uint64_t> dflt);
// upsample_initial_channel, upsample_rates, upsample_kernel_sizes, resblock_kernel_sizes and
// resblock_dilation_sizes over `d`'s defaults; the lists zipped must be of one length, and every stage must
// leave channels to halve.
void read_hifigan_dims(const ModelConfig& cfg, HifiGanDims& d);

// conv_pre (`in_channels` to upsample_initial_channel, kernel 7), upsampler.N and resblocks.N under `p`
// ("decoder."). Returns the last stage's channels, which conv_post reads.
uint64_t hifigan_generator(ModelTemplate& t, const std::string& p, uint64_t in_channels,
                           const HifiGanDims& d);

}  // namespace ma::families
