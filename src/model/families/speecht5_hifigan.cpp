// SpeechT5HifiGan (model_type "hifigan", microsoft/speecht5_hifigan): the vocoder that turns the mel
// spectrograms of SpeechT5's speech decoder into a waveform. SpeechT5HifiGanConfig's defaults are that
// checkpoint's: 80 mel bins into 512 channels, four x4 upsampling stages (kernels 8), residual blocks of
// kernels 3, 7 and 11 with dilations 1, 3, 5. Everything sits at the root: the mean and scale that normalise
// the input spectrogram (persistent buffers), the generator, and its conv_post (with a bias, where VITS' has
// none).
#include <string>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/hifigan_generator.h"
#include "model/families/speecht5.h"

namespace ma::families {

void build_speecht5_hifigan(const ModelConfig& cfg, ModelTemplate& t) {
  // FastSpeech2ConformerHifiGan's configs say model_type "hifigan" too: its class is refused here.
  const std::string cls = architecture_of(cfg, "SpeechT5HifiGan");
  supported_task(cfg, cls, "SpeechT5", {"HifiGan"});
  t.arch.architecture = cls;
  const uint64_t mel = cfg.dim_or("model_in_dim", 80);
  t.arch.hidden_size = mel;  // the width of the frames it reads
  HifiGanDims d;
  d.upsample_rates = {4, 4, 4, 4};
  d.upsample_kernels = {8, 8, 8, 8};
  d.resblock_kernels = {3, 7, 11};
  d.resblock_dilation_counts = {3, 3, 3};
  read_hifigan_dims(cfg, d);
  // The model's own buffers come first in its state_dict, before its modules' tensors.
  t.add("mean", {mel}).kind = TensorKind::Buffer;
  t.add("scale", {mel}).kind = TensorKind::Buffer;
  const uint64_t channels = hifigan_generator(t, "", mel, d);
  blocks::conv1d(t, "conv_post", channels, 1, 7);
}

}  // namespace ma::families
