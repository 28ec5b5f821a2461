#include "model/decoder_task_head.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/families/encoders_common.h"
#include "model/tensor_placement.h"

namespace ma {
namespace {

enum class TaskHead { Sequence, Token, QuestionAnswering };

std::optional<TaskHead> task_head_of(const std::string& cls) {
  if (cls.ends_with("ForSequenceClassification")) return TaskHead::Sequence;
  if (cls.ends_with("ForTokenClassification")) return TaskHead::Token;
  if (cls.ends_with("ForQuestionAnswering")) return TaskHead::QuestionAnswering;
  return std::nullopt;
}

// The model types whose question-answering class holds the base model as `transformer` "for BC", as
// LlamaForQuestionAnswering and Qwen2ForQuestionAnswering override GenericForQuestionAnswering's `model`, and
// the classes that inherit theirs (transformers 5). Mistral's, Mixtral's, Qwen2-MoE's and MiniMax's keep
// `model`.
constexpr std::array<std::string_view, 12> kQaBaseAsTransformer = {
    "llama",   "qwen2", "qwen3",    "qwen3_moe", "qwen3_next", "ministral",
    "exaone4", "arcee", "seed_oss", "smollm3",   "diffllama",  "nemotron"};

// The base model the generic classes hold as `model` (AutoModel under model., not OPT's model.decoder.).
bool generic_base(const ModelTemplate& t) {
  const auto embedding =
      std::find_if(t.tensors.begin(), t.tensors.end(), [](const TemplateTensor& x) { return x.embedding; });
  return embedding != t.tensors.end() && embedding->name.starts_with("model.") &&
         !embedding->name.starts_with("model.decoder.");
}

// The head's module: GenericForTokenClassification's `score` over a generic base, the older classes' own
// `classifier` under transformer., gpt_neox. or biogpt. (GPT-2, GPT-Neo(X), BLOOM, Falcon, MPT, GPTBigCode,
// BioGPT).
std::string head_name(TaskHead task, const ModelTemplate& t) {
  switch (task) {
    case TaskHead::Sequence:
      return "score";
    case TaskHead::Token:
      return generic_base(t) ? "score" : "classifier";
    case TaskHead::QuestionAnswering:
      return "qa_outputs";
  }
  return "score";
}

bool in_lm_head(const TemplateTensor& x) {
  return place_tensor(x.name).block == Block::LmHead;
}

// The LM head's input width: hidden_size, or what a final projection makes of it (OPT's word_embed_proj_dim).
uint64_t head_input_width(const ModelTemplate& t) {
  for (const TemplateTensor& x : t.tensors)
    if (in_lm_head(x) && x.name.ends_with(".weight") && x.shape.size() == 2) return x.shape[1];
  return t.arch.hidden_size;
}

}  // namespace

void swap_lm_head_for_task_head(const ModelConfig& cfg, ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  const std::vector<std::string> classes = cfg.strings("architectures");
  if (classes.empty() || !a.stack(StackRole::Decoder) || a.stack(StackRole::Encoder)) return;
  const std::optional<TaskHead> task = task_head_of(classes.front());
  if (!task) return;
  // A builder that made the head itself (Qwen3-ASR's aligner, ImageGPT's score) is left as it built it.
  const auto own = [](const TemplateTensor& x) {
    return x.name.starts_with("score.") || x.name.starts_with("classifier.") ||
           x.name.starts_with("qa_outputs.");
  };
  if (std::any_of(t.tensors.begin(), t.tensors.end(), own) ||
      std::none_of(t.tensors.begin(), t.tensors.end(), in_lm_head))
    return;
  const std::string name = head_name(*task, t);
  const uint64_t width = head_input_width(t);
  const uint64_t outputs = *task == TaskHead::QuestionAnswering ? 2 : families::num_labels(cfg);
  if (*task == TaskHead::QuestionAnswering && generic_base(t) &&
      std::find(kQaBaseAsTransformer.begin(), kQaBaseAsTransformer.end(), a.model_type) !=
          kQaBaseAsTransformer.end())
    t.rename_module("model.", "transformer.");
  std::erase_if(t.tensors, in_lm_head);
  t.add(name + ".weight", {outputs, width});
  if (*task != TaskHead::Sequence) t.add(name + ".bias", {outputs});
  a.architecture = classes.front();  // the class the template now mirrors
  a.tie_word_embeddings = false;     // no LM head left to tie to the embedding
}

}  // namespace ma
