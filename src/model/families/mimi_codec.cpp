// Mimi on its own (mimi; MimiModel, kyutai/mimi): the codec Kyutai's speech-to-text model and Sesame's CSM
// nest as codec_model, built by speech_asr's mimi_model at the root. MimiConfig's defaults are kyutai/mimi's.
#include <string>

#include "model/families/csm_mimi.h"
#include "model/families/encoders_common.h"
#include "model/families/speech_asr.h"

namespace ma::families {

void build_mimi(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "MimiModel");
  supported_task(cfg, cls, "Mimi", {"Model"});  // the only class of MimiConfig
  t.arch.architecture = cls;
  t.arch.hidden_size = cfg.dim_or("hidden_size", 512);  // the width of the frames its transformers run on
  mimi_model(cfg, "", t);
}

}  // namespace ma::families
