// A decoder-only model built as a classifier or a span extractor (reward models: Skywork-Reward-Llama-3.1-8B
// is a LlamaForSequenceClassification with one label). transformers builds it as the causal LM's base model
// with one Linear where the LM head was, reading the same last hidden state (OPT's narrower
// word_embed_proj_dim included):
// - a sequence classifier's score = Linear(width, num_labels, bias=False): GenericForSequenceClassification
//   (Llama, Mistral, Qwen2/3, Gemma, Phi-3, ...) and the older per-model classes alike (GPT-2, GPT-J,
//   GPT-Neo, GPT-NeoX, OPT, BLOOM, Falcon, MPT, Phi);
// - a per-token classifier's is biased: GenericForTokenClassification's `score`, the older classes' own
//   `classifier`;
// - question answering's qa_outputs = Linear(width, 2), biased. GenericForQuestionAnswering holds the base
//   model as `model`, but Llama's and Qwen2's classes and those inheriting them (Qwen3(-MoE, -Next),
//   Ministral, SmolLM3, Exaone 4, ...) as `transformer` "for BC": their names move from model. to
//   transformer.; the older classes keep their causal LM's base names (transformer., gpt_neox., OPT's
//   model.decoder.).
// Family builders build the causal LM; build_template then swaps its head.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma {

// When the config's class ends in ForSequenceClassification, ForTokenClassification or ForQuestionAnswering
// and the template is a decoder with an LM head (encoders' and BART's heads are their builders' own, and hold
// none): removes the LM head's tensors and adds the head above, [num_labels, width] (num_labels:
// len(id2label), else num_labels, else 2; width: the LM head's input); the record names that class and ties
// nothing.
void swap_lm_head_for_task_head(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma
