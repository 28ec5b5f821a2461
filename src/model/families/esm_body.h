// ESM's embeddings and pre-normed layer stack (encoders_esm.cpp), shared by EsmModel and by the SaProt
// protein encoder Evolla nests (EvollaSaProtProteinEncoder, transformers' copy of ESM with its own defaults).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "model/config.h"
#include "model/families/encoders_common.h"
#include "model/model_template.h"

namespace ma::families {

// A config class's defaults for ESM's fields: EsmConfig's unless the class has its own.
struct EsmDefaults {
  uint64_t vocab = 0;  // 0: no default, config.json must give vocab_size (EsmConfig)
  uint64_t layers = 12, hidden = 768, heads = 12, ffn = 3072, positions = 1026;
  std::string_view position_type = "absolute";
};

struct EsmBody {
  TextEncoderDims dims;
  uint64_t head_dim = 0;
  bool rotary = false;           // position_embedding_type "rotary": no position table
  bool emb_norm_before = false;  // emb_layer_norm_before: a LayerNorm on the embeddings
};

// The body's fields; heads must divide the width, and the positions be absolute or rotary.
EsmBody read_esm_body(const ModelConfig& cfg, const EsmDefaults& defaults);
// `p`embeddings.word_embeddings, .layer_norm (emb_norm_before), .position_embeddings (unless rotary).
void esm_embeddings(ModelTemplate& t, const std::string& p, const EsmBody& b);
// `p`encoder.layer.N, recorded as an Encoder stack, and `p`encoder.emb_layer_norm_after. With
// `inv_freq_in_layers` a rotary body's self-attention owns its persistent inv_freq buffer, registered right
// after value (EsmSelfAttention before transformers moved it to the model; Evolla's SaProt copy still does).
void esm_encoder(ModelTemplate& t, const std::string& p, const EsmBody& b, bool inv_freq_in_layers);

}  // namespace ma::families
