#include "model/families/llama_vlm.h"

#include "model/families/decoder_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {

LlamaVlm begin_llama_vlm(const ModelConfig& cfg, ModelTemplate& t, std::string_view class_prefix,
                         std::string_view family) {
  LlamaVlm v{true, "", sub_or_empty(cfg, "text_config"), {}};
  v.conditional = first_architecture(cfg) != std::string(class_prefix) + "Model";
  v.root = v.conditional ? "model." : "";
  t.arch.architecture = std::string(class_prefix) + (v.conditional ? "ForConditionalGeneration" : "Model");
  const std::string type = v.text.string_or("model_type", "llama");
  if (type != "llama") unsupported(cfg, std::string(family) + " with a " + type + " language model");
  v.style = read_llama_text(v.text, t);
  return v;
}

void finish_llama_vlm(const LlamaVlm& v, ModelTemplate& t, bool tie, std::string_view model_type) {
  t.arch.tie_word_embeddings = tie;
  llama_style_decoder(t, v.root + "language_model.", v.style);
  if (v.conditional) lm_head(t, v.root + "language_model.embed_tokens.weight", t.arch);
  t.arch.model_type = model_type;
}

}  // namespace ma::families
