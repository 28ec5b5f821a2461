#include "model/decoder_classification_head.h"

#include <algorithm>
#include <string>
#include <vector>

#include "model/families/encoders_common.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

// The per-token classifier's module: GenericForTokenClassification's `score` where the base model is `model`
// (the modular classes: Llama, Mistral, Qwen2/3, Gemma, Phi, ...), the older classes' own `classifier` under
// transformer., gpt_neox. or biogpt. (GPT-2, GPT-Neo(X), BLOOM, Falcon, MPT, GPTBigCode, BioGPT).
std::string token_classifier_name(const ModelTemplate& t) {
  const auto embedding =
      std::find_if(t.tensors.begin(), t.tensors.end(), [](const TemplateTensor& x) { return x.embedding; });
  return embedding != t.tensors.end() && embedding->name.starts_with("model.") ? "score" : "classifier";
}

}  // namespace

void swap_lm_head_for_classifier(const ModelConfig& cfg, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  const std::vector<std::string> classes = cfg.strings("architectures");
  if (classes.empty() || !a.stack(StackRole::Decoder) || a.stack(StackRole::Encoder)) return;
  const bool sequence = classes.front().ends_with("ForSequenceClassification");
  const bool token = classes.front().ends_with("ForTokenClassification");
  if (!sequence && !token) return;
  // A builder that made the classifier itself (Qwen3-ASR's aligner, ImageGPT's score) is left as it built it.
  const auto own = [](const TemplateTensor& x) {
    return x.name.starts_with("score.") || x.name.starts_with("classifier.");
  };
  const auto head = [](const TemplateTensor& x) { return place_tensor(x.name).block == Block::LmHead; };
  if (std::any_of(t.tensors.begin(), t.tensors.end(), own) ||
      std::none_of(t.tensors.begin(), t.tensors.end(), head))
    return;
  const std::string name = sequence ? "score" : token_classifier_name(t);
  std::erase_if(t.tensors, head);
  const uint64_t labels = families::num_labels(cfg);
  t.add(name + ".weight", {labels, a.hidden_size});
  if (token) t.add(name + ".bias", {labels});
  a.architecture = classes.front();  // the class the template now mirrors
  a.tie_word_embeddings = false;     // no LM head left to tie to the embedding
}

}  // namespace ma
