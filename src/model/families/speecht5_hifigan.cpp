// SpeechT5HifiGan (model_type "hifigan", microsoft/speecht5_hifigan), and FastSpeech2ConformerHifiGan, its
// copy under the same model_type (espnet/fastspeech2_conformer_hifigan): the vocoder that turns the mel
// spectrograms of SpeechT5's speech decoder into a waveform. SpeechT5HifiGanConfig's defaults are that
// checkpoint's: 80 mel bins into 512 channels, four x4 upsampling stages (kernels 8), residual blocks of
// kernels 3, 7 and 11 with dilations 1, 3, 5. Everything sits at the root: the mean and scale that normalise
// the input spectrogram (persistent buffers), the generator, and its conv_post (with a bias, where VITS' has
// none).
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/encoders_common.h"
#include "model/families/hifigan_generator.h"
#include "model/families/speecht5.h"

namespace ma::families {

void hifigan_vocoder(const ModelConfig& cfg, ModelTemplate& t, const std::string& p, bool fastspeech2) {
  const uint64_t mel = cfg.dim_or("model_in_dim", 80);
  HifiGanDims d;
  // FastSpeech2ConformerHifiGanConfig's defaults are espnet/fastspeech2_conformer_hifigan's: two x8 and two
  // x2 stages (kernels 16 and 4), where SpeechT5's upsample x4 four times.
  d.upsample_rates = fastspeech2 ? std::vector<uint64_t>{8, 8, 2, 2} : std::vector<uint64_t>{4, 4, 4, 4};
  d.upsample_kernels = fastspeech2 ? std::vector<uint64_t>{16, 16, 4, 4} : std::vector<uint64_t>{8, 8, 8, 8};
  d.resblock_kernels = {3, 7, 11};
  d.resblock_dilation_counts = {3, 3, 3};
  read_hifigan_dims(cfg, d);
  // The model's own buffers come first in its state_dict, before its modules' tensors.
  t.add(p + "mean", {mel}).kind = TensorKind::Buffer;
  t.add(p + "scale", {mel}).kind = TensorKind::Buffer;
  const uint64_t channels = hifigan_generator(t, p, mel, d);
  blocks::conv1d(t, p + "conv_post", channels, 1, 7);
}

void build_speecht5_hifigan(const ModelConfig& cfg, ModelTemplate& t) {
  // FastSpeech2ConformerHifiGan's configs say model_type "hifigan" too: a copy of SpeechT5HifiGan.
  const std::string cls = architecture_of(cfg, "SpeechT5HifiGan");
  const bool fastspeech2 = cls.starts_with("FastSpeech2Conformer");
  supported_task(cfg, cls, fastspeech2 ? "FastSpeech2Conformer" : "SpeechT5", {"HifiGan"});
  t.arch.architecture = cls;
  t.arch.hidden_size = cfg.dim_or("model_in_dim", 80);  // the width of the frames it reads
  hifigan_vocoder(cfg, t, "", fastspeech2);
}

}  // namespace ma::families
