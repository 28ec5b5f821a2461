#include "model/decoder_classification_head.h"

#include <algorithm>
#include <string>
#include <vector>

#include "model/families/encoders_common.h"
#include "model/tensor_placement.h"

namespace ma {

void swap_lm_head_for_classifier(const ModelConfig& cfg, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  const std::vector<std::string> classes = cfg.strings("architectures");
  if (classes.empty() || !classes.front().ends_with("ForSequenceClassification") ||
      !a.stack(StackRole::Decoder) || a.stack(StackRole::Encoder))
    return;
  const auto head = [](const TemplateTensor& x) { return place_tensor(x.name).block == Block::LmHead; };
  if (std::none_of(t.tensors.begin(), t.tensors.end(), head)) return;
  std::erase_if(t.tensors, head);
  t.add("score.weight", {families::num_labels(cfg), a.hidden_size});
  a.architecture = classes.front();  // the class the template now mirrors
  a.tie_word_embeddings = false;     // no LM head left to tie to the embedding
}

}  // namespace ma
