// A decoder-only model built as a classifier (reward models: Skywork-Reward-Llama-3.1-8B is a
// LlamaForSequenceClassification with one label). transformers builds it as the causal LM's base model, under
// the same names, with one Linear to num_labels where the LM head was. A sequence classifier's is
// score = Linear(hidden_size, num_labels, bias=False): GenericForSequenceClassification (Llama, Mistral,
// Qwen2/3, Gemma, Phi-3, ...) and the older per-model classes alike (GPT-2, GPT-J, GPT-Neo, GPT-NeoX, OPT,
// BLOOM, Falcon, MPT, Phi). A per-token classifier's is biased: GenericForTokenClassification's `score`, the
// older classes' `classifier`. Family builders build the causal LM; build_template then swaps its head.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma {

// When the config's class ends in ForSequenceClassification or ForTokenClassification and the template is a
// decoder with an LM head (encoders' and BART's classifiers are their builders' own, and hold none): removes
// the LM head's tensors and adds the classifier, [num_labels, hidden_size] (num_labels: len(id2label), else
// num_labels, else 2); the record names that class and ties nothing. Question answering (qa_outputs, under
// a base model some classes rename) is left as built.
void swap_lm_head_for_classifier(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma
