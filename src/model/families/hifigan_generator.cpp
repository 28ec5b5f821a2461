#include "model/families/hifigan_generator.h"

#include "core/json.h"
#include "model/blocks.h"

namespace ma::families {

std::vector<uint64_t> hifigan_dilation_counts(const ModelConfig& cfg, std::vector<uint64_t> dflt) {
  if (!cfg.has("resblock_dilation_sizes")) return dflt;
  const json::Value* lists = cfg.raw("resblock_dilation_sizes");
  if (!lists->is_array()) cfg.fail("resblock_dilation_sizes", "must be a list of lists of dilations");
  std::vector<uint64_t> counts;
  for (const json::Value& list : lists->items()) {
    if (!list.is_array()) cfg.fail("resblock_dilation_sizes", "must be a list of lists of dilations");
    for (const json::Value& d : list.items())
      if (!d.as_uint() || *d.as_uint() == 0)
        cfg.fail("resblock_dilation_sizes", "dilations must be positive integers");
    counts.push_back(list.items().size());
  }
  return counts;
}

void read_hifigan_dims(const ModelConfig& cfg, HifiGanDims& d) {
  d.upsample_initial = cfg.dim_or("upsample_initial_channel", d.upsample_initial);
  d.upsample_rates = cfg.dims_or("upsample_rates", d.upsample_rates);
  d.upsample_kernels = cfg.dims_or("upsample_kernel_sizes", d.upsample_kernels);
  if (d.upsample_rates.empty())
    cfg.fail("upsample_rates",
             "must list at least one upsampling stage (HiFi-GAN's conv_post reads the last)");
  // VitsConfig raises; SpeechT5HifiGan would zip the lists into fewer stages than its forward runs.
  if (d.upsample_kernels.size() != d.upsample_rates.size())
    cfg.fail("upsample_kernel_sizes", "must have as many entries as upsample_rates");
  if (d.upsample_rates.size() >= 64 || (d.upsample_initial >> d.upsample_rates.size()) == 0)
    cfg.fail("upsample_rates", "halve upsample_initial_channel to nothing");
  d.resblock_kernels = cfg.dims_or("resblock_kernel_sizes", d.resblock_kernels);
  d.resblock_dilation_counts = hifigan_dilation_counts(cfg, d.resblock_dilation_counts);
  // Both generators zip the two lists but average over len(resblock_kernel_sizes) blocks per stage.
  if (d.resblock_dilation_counts.size() != d.resblock_kernels.size())
    cfg.fail("resblock_dilation_sizes", "must have as many entries as resblock_kernel_sizes");
}

uint64_t hifigan_generator(ModelTemplate& t, const std::string& p, uint64_t in_channels,
                           const HifiGanDims& d) {
  blocks::conv1d(t, p + "conv_pre", in_channels, d.upsample_initial, 7);
  for (size_t i = 0; i < d.upsample_rates.size(); ++i)
    blocks::transposed_conv1d(t, p + "upsampler." + std::to_string(i), d.upsample_initial >> i,
                              d.upsample_initial >> (i + 1), d.upsample_kernels[i]);
  uint64_t block = 0, channels = 0;
  for (size_t i = 0; i < d.upsample_rates.size(); ++i) {
    channels = d.upsample_initial >> (i + 1);
    for (size_t k = 0; k < d.resblock_kernels.size(); ++k) {
      const std::string r = p + "resblocks." + std::to_string(block++) + ".";
      for (const char* list : {"convs1.", "convs2."})
        for (uint64_t j = 0; j < d.resblock_dilation_counts[k]; ++j)
          blocks::conv1d(t, r + list + std::to_string(j), channels, channels, d.resblock_kernels[k]);
    }
  }
  return channels;
}

}  // namespace ma::families
