// RAG (facebook/rag-token-nq, rag-sequence-nq, rag-token-base ...): a question encoder (DPR's, as AutoModel
// builds it: DPRQuestionEncoder) and a seq2seq generator (BART's or T5's, as AutoModelForSeq2SeqLM builds
// it), nested whole under question_encoder. / generator.; the retriever is an index outside the model.
// RagModel holds them itself; RagTokenForGeneration and RagSequenceForGeneration hold one RagModel under rag.
// and nothing else.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/nested_composites.h"
#include "model/families/nested_composites_common.h"
#include "model/families/nested_model.h"

namespace ma::families {
namespace {

// The class AutoModelForSeq2SeqLM builds for the generator types whose builders model it.
std::string_view rag_generator_class(std::string_view type) {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kSeq2SeqLm{{
      {"bart", "BartForConditionalGeneration"},
      {"mbart", "MBartForConditionalGeneration"},
      {"t5", "T5ForConditionalGeneration"},
      {"mt5", "MT5ForConditionalGeneration"},
      {"pegasus", "PegasusForConditionalGeneration"},
      {"marian", "MarianMTModel"},
  }};
  for (const auto& [model_type, cls] : kSeq2SeqLm)
    if (model_type == type) return cls;
  return {};
}

}  // namespace

void build_rag(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "RagModel");
  const std::string task =
      supported_task(cfg, cls, "Rag", {"Model", "TokenForGeneration", "SequenceForGeneration"});
  const std::string p = task == "Model" ? "" : "rag.";
  // RagConfig asserts both sub-configs are given and pops each one's model_type.
  const std::string question_type = sub_model_type(cfg, "question_encoder");
  const std::string generator_type = sub_model_type(cfg, "generator");
  const std::string_view generator_cls = rag_generator_class(generator_type);
  if (generator_cls.empty()) unsupported(cfg, "rag with a " + printable(generator_type) + " generator");

  ModelTemplate question = nested_family_model(cfg, as_auto_class(cfg, "question_encoder", ""), question_type,
                                               "question_encoder", p + "question_encoder.");
  // AutoModel's class for the question encoder's type must be one encoder: its pooled (DPR: [CLS]) output
  // scores the retrieved documents.
  for (const StackSpec& s : question.arch.stacks)
    if (s.role != StackRole::Encoder)
      unsupported(cfg, "rag with a " + printable(question_type) + " question_encoder");
  ModelTemplate generator = nested_family_model(cfg, as_auto_class(cfg, "generator", generator_cls),
                                                generator_type, "generator", p + "generator.");

  // The record is the generator's (it generates); the question encoder's stacks follow its own, so that the
  // record's first encoder stack stays the generator's.
  auto question_stacks = std::move(question.arch.stacks);
  adopt_record(t, std::move(generator.arch), cls);
  for (StackSpec& s : question_stacks) t.arch.stacks.push_back(std::move(s));
  append_model(t, std::move(question));
  append_model(t, std::move(generator));
}

}  // namespace ma::families
