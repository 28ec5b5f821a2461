// Inference activations: what one prefill pass holds at its peak. The report's inference_activations and
// plan's transformers budget both read it, so that the two never give a model two figures.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/architecture.h"
#include "model/inventory.h"

namespace ma {

// The widest FFN intermediates one token holds over the layers: a gated MLP holds gate, up and their product
// (3 widths), an ungated one (GELU, relu²) up and its activation (2); a MoE layer its top-k routed experts
// and its shared experts together (shared_expert_intermediate_size, not one more routed expert's width).
struct FfnWidth {
  uint64_t elements = 0;  // per token; 0 when the record has no FFN widths
  std::string formula;
};
FfnWidth widest_ffn(const ArchitectureRecord& a);  // of the main stack's layers
FfnWidth widest_ffn(const std::vector<LayerSpec>& layers);

// A stack whose activations the estimates size, at the length one pass runs it over. The language model's
// stack (the decoder, else the encoder) at the context, with the record's own widths; beside a decoder that
// cross-attends an encoder (T5, BART, Whisper), that encoder at its input length: the positions the record
// fixes for it (Whisper's 1,500 frames after the conv stride, BART's 1,024-position table), else the context
// (T5's relative positions take any input), as the cross-attention cache counts them. Towers that feed the
// decoder embeddings (vision, audio) are not among them: how many images or clips a sequence holds is no
// figure the estimates have.
struct ActivationStack {
  std::string role;  // stack_role_name: "decoder", "encoder"
  uint64_t layers = 0, hidden = 0, heads = 0;
  uint64_t sequence = 0;        // positions a pass runs over; 0: unknown (no context)
  std::string sequence_factor;  // how an overflow error names `sequence`: "context", "encoder positions"
  FfnWidth ffn;                 // its layers' widest FFN intermediates (0: the record has none)
};
// The encoder (if any) first, as it runs first; the main stack always, with 0 layers when there is none.
std::vector<ActivationStack> activation_stacks(const ArchitectureRecord& a, uint64_t context);

// The logits a forward pass materialises: a generating head (causal LM, seq2seq) only the last position's
// (transformers computes the head on the last hidden state when it generates); a masked-LM head every
// position's over the vocabulary, a token-classification head every position's over its labels.
struct LogitsShape {
  bool every_position = false;
  uint64_t width = 0;  // vocab_size, or the classifier's labels
  std::string head;    // "BertForMaskedLM's masked-LM head", for the formula; "" for a generating head
  std::string unit;    // "vocab", "labels"
};
LogitsShape logits_shape(const Inventory& inv);

// Peak activations of one prefill pass over batch x context, attention done by a memory-efficient kernel
// (no context x context scores): the largest layer of the stacks (an encoder-decoder runs its encoder, then
// its decoder) and the fp32 logits the head materialises. Under tensor parallelism over `tp` devices each
// holds 1/tp of the FFN intermediates (the residual stream is whole on every device); the logits are whole
// where the head runs.
struct PrefillActivations {
  uint64_t layer_bytes = 0, logits_bytes = 0;
  std::string layer_formula, logits_formula;
};
PrefillActivations prefill_activations(const ArchitectureRecord& a, const LogitsShape& logits, uint64_t batch,
                                       uint64_t context, uint64_t bytes_per_element, uint32_t tp = 1);

}  // namespace ma
