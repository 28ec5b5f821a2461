// BLIP-2's Q-Former and the language model its composites nest (blip.cpp), shared with the other models that
// project features through a Blip2QFormerModel (Granite Speech's audio projector).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/families/encoders_common.h"
#include "model/model_template.h"

namespace ma::families {

// A Blip2QFormerConfig's sizes; the defaults are the class's.
struct QFormer {
  uint64_t hidden = 768, inter = 3072, layers = 12, heads = 12, vocab = 30522, positions = 512;
  uint64_t cross_every = 2;  // cross_attention_frequency
  bool text_input = false;   // the text feed-forward (intermediate / output) beside the queries'
  TextEncoderDims dims() const;
};
QFormer read_qformer(const ModelConfig& q, bool text_input);

// The Q-Former's layers under `p` (its LayerNorm or embeddings are the caller's), recorded as a projector
// stack. Cross-attention reads `kv_width`-wide features: BLIP-2's config classes overwrite
// encoder_hidden_size with the vision tower's width; Granite Speech's states its own.
void qformer_layers(ModelTemplate& t, const std::string& p, const QFormer& f, uint64_t kv_width);

// text_config built as AutoModelForCausalLM (decoder-only types) or AutoModelForSeq2SeqLM (T5) builds it,
// under language_model.; a text_config without a model_type is `default_type`'s (BLIP-2: an OPT-125M,
// Granite Speech: Granite). Its record becomes the model's. `family` names the composite in refusals.
ModelTemplate qformer_language_model(const ModelConfig& cfg, std::string_view family,
                                     std::string_view default_type);

}  // namespace ma::families
