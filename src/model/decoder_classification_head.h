// A decoder-only model built as a sequence classifier (reward models: Skywork-Reward-Llama-3.1-8B is a
// LlamaForSequenceClassification with one label). transformers builds it as the causal LM's base model with
// one Linear(hidden_size, num_labels, bias=False) where the LM head was: GenericForSequenceClassification
// (Llama, Mistral, Qwen2/3, Gemma, Phi-3, ...) and the older per-model classes alike (GPT-2, GPT-J, GPT-Neo,
// GPT-NeoX, OPT, BLOOM, Falcon, MPT, Phi) name it `score`, under the same base-model names as the causal LM.
// Family builders build the causal LM; build_template then swaps its head for that Linear.
#pragma once
#include "model/config.h"
#include "model/model_template.h"

namespace ma {

// When the config's class ends in ForSequenceClassification and the template is a decoder with an LM head
// (encoders' and BART's classifiers are their builders' own, and hold none): removes the LM head's tensors
// and adds score.weight, [num_labels, hidden_size] (len(id2label), else num_labels, else 2); the record
// names that class and ties nothing.
void swap_lm_head_for_classifier(const ModelConfig& cfg, ModelTemplate& t);

}  // namespace ma
