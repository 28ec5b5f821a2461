// What Kosmos-2 (kosmos2.cpp) and Kosmos-2.5 (kosmos2_5.cpp) share: the text config's fields, the
// MAGNETO-style (sub-LN) text decoder under text_model (pre-LayerNorm attention with biased k, v, q, out
// projections, an MLP with a LayerNorm between its two linears, sinusoidal positions: a non-persistent
// buffer, no tensor) and the image-to-text projection that lets learned queries attend over the projected
// patches and themselves.
#pragma once
#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/model_template.h"

namespace ma::families {

// A Kosmos text config class's defaults.
struct KosmosTextDefaults {
  uint64_t vocab = 0, positions = 0, embed = 0, layers = 0, ffn = 0, heads = 0;
};
// The text config `tc` of `cfg` (embed_dim, layers, ffn_dim, attention_heads ...) into t.arch; heads must
// split embed_dim. The composite ties by its own flag, its text_model (a causal LM of its own) by
// text_config's, both true by default: tied when either is.
void read_kosmos_text(const ModelConfig& cfg, const ModelConfig& tc, const KosmosTextDefaults& d,
                      ModelTemplate& t);

struct KosmosTextShape {
  bool inner_attn_norm = true;      // Kosmos-2's self-attention has the sub-LN; Kosmos-2.5's has none
  bool segment_embeddings = false;  // Kosmos-2.5: segment_emb [2, E] marks image positions
  bool cross_attention = false;     // add_cross_attention: an encoder_attn per layer (unused by releases)
  bool lm_head = true;              // the generation class's text_model.lm_head, tied as the record says
};
// The text model under text_model.: model.embed_tokens, (model.segment_emb,) model.layers.N, model.layer_norm
// and lm_head, with its Decoder stack in the record.
void kosmos_text_model(ModelTemplate& t, const KosmosTextShape& s);

// image_to_text_projection: latent_query [queries, E] (its own parameter, listed first), dense from the
// tower's width, and the queries' attention x_attn (no sub-LN). Recorded as the projector.
void kosmos_image_to_text_projection(ModelTemplate& t, uint64_t queries, uint64_t vision_width);

}  // namespace ma::families
