// The frame of the vision-language models built around a Llama language model under
// model.language_model (DeepSeek-VL, Janus, Perception-LM): the class config.json names (the bare model, or
// the conditional-generation class, which nests it under model. and adds lm_head), text_config read as
// LlamaConfig's, and the decoder with its head once the towers are placed.
#pragma once
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/families/decoder_llama.h"
#include "model/model_template.h"

namespace ma::families {

struct LlamaVlm {
  bool conditional = true;
  std::string root;  // "model." for the conditional-generation class, "" for the bare model
  ModelConfig text;
  LlamaStyle style;
};

// Sets the architecture (`class_prefix` + ForConditionalGeneration unless config.json names
// `class_prefix` + Model), reads text_config (a language model other than Llama is unsupported, `family`
// naming the model in that error) into t.arch.
LlamaVlm begin_llama_vlm(const ModelConfig& cfg, ModelTemplate& t, std::string_view class_prefix,
                         std::string_view family);
// The language model under root + language_model. and, for the conditional class, lm_head, tied as `tie`
// says; the record's model_type is `model_type`.
void finish_llama_vlm(const LlamaVlm& v, ModelTemplate& t, bool tie, std::string_view model_type);

}  // namespace ma::families
