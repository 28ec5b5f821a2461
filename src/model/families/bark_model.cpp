// Bark (BarkModel; suno/bark, suno/bark-small): text to speech in four models run one after the other,
// registered in this order: the semantic (text) model, a causal GPT from text tokens to semantic tokens; the
// coarse-acoustics model, a causal GPT from those to the first EnCodec codebooks; the fine-acoustics model,
// which fills in the remaining codebooks attending both ways (bark_gpt.cpp); and the EnCodec codec
// (AutoModel.from_config(codec_config), encodec.cpp) whose decoder turns the codes into a waveform.
//
// The record describes the semantic model, the one that reads the text: its dimensions and decoder stack.
// The coarse and fine models and the codec turn its output into speech, as the omni models' talker and
// token2wav do: they are no stack of the record (Block::SpeechOutput and Block::Audio), while the total is
// num_parameters() of the whole model. (Their own caches and compute are not modelled.)
#include <string>

#include "core/error.h"
#include "model/families/bark.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/speech_gen.h"

namespace ma::families {

void build_bark(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BarkModel");
  supported_task(cfg, cls, "Bark", {"Model"});  // BarkConfig's only class
  // BarkConfig builds each absent (or null) sub-config with its class's defaults; codec_config's class is
  // CONFIG_MAPPING[its model_type, "encodec" when the dict names none].
  const ModelConfig semantic = sub_or_empty(cfg, "semantic_config");
  const ModelConfig coarse = sub_or_empty(cfg, "coarse_acoustics_config");
  const ModelConfig fine = sub_or_empty(cfg, "fine_acoustics_config");
  const ModelConfig codec = sub_or_empty(cfg, "codec_config");
  if (const std::string type = codec.string_or("model_type", "encodec"); type != "encodec")
    unsupported(cfg, "Bark with a codec of model_type " + printable(type));

  record_bark_sub_model(semantic, BarkPart::Semantic, "semantic.", t);
  t.arch.architecture = cls;
  t.arch.model_type = "semantic";  // the language model's, as composites record theirs
  bark_sub_model(semantic, BarkPart::Semantic, "semantic.", t);
  bark_sub_model(coarse, BarkPart::Coarse, "coarse_acoustics.", t);
  bark_sub_model(fine, BarkPart::Fine, "fine_acoustics.", t);
  encodec_model(codec, "codec_model.", t);
}

}  // namespace ma::families
