#include "model/families/kosmos_text.h"

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"

namespace ma::families {
namespace {

// KosmosTextAttention (Kosmos2_5TextAttention): biased k_proj, v_proj, q_proj, out_proj (registered in that
// order), and the sub-LN inner_attn_ln before out_proj when `inner_norm`.
void kosmos_attention(ModelTemplate& t, const std::string& p, uint64_t e, bool inner_norm) {
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"}) blocks::linear(t, p + proj, e, e, true);
  if (inner_norm) blocks::norm(t, p + "inner_attn_ln", e, true);
}

}  // namespace

void read_kosmos_text(const ModelConfig& cfg, const ModelConfig& tc, const KosmosTextDefaults& d,
                      ModelTemplate& t) {
  ArchitectureRecord& a = t.arch;
  a.vocab_size = tc.dim_or("vocab_size", d.vocab);
  a.max_position_embeddings = tc.dim_or("max_position_embeddings", d.positions);
  a.hidden_size = tc.dim_or("embed_dim", d.embed);
  a.num_layers = tc.layers_or("layers", d.layers);
  a.intermediate_size = tc.dim_or("ffn_dim", d.ffn);
  a.num_attention_heads = a.num_key_value_heads = tc.dim_or("attention_heads", d.heads);
  a.head_dim = split_heads(tc, "attention_heads", a.hidden_size, a.num_attention_heads);
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true) || tc.flag_or("tie_word_embeddings", true);
}

void kosmos_text_model(ModelTemplate& t, const KosmosTextShape& s) {
  ArchitectureRecord& a = t.arch;
  const uint64_t e = a.hidden_size, ffn = a.intermediate_size;
  const std::string p = "text_model.model.";
  blocks::embedding(t, p + "embed_tokens.weight", a.vocab_size, e);
  if (s.segment_embeddings) blocks::embedding(t, p + "segment_emb.weight", 2, e);
  StackSpec& stack = a.add_stack(StackRole::Decoder, p + "layers", e);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    kosmos_attention(t, l + "self_attn.", e, s.inner_attn_norm);
    blocks::norm(t, l + "self_attn_layer_norm", e, true);
    LayerSpec spec = attention_layer(a);
    if (s.cross_attention) {
      kosmos_attention(t, l + "encoder_attn.", e, false);
      blocks::norm(t, l + "encoder_attn_layer_norm", e, true);
      spec.cross_attention = spec.attention;
    }
    blocks::linear(t, l + "ffn.fc1", e, ffn, true);
    blocks::linear(t, l + "ffn.fc2", ffn, e, true);
    blocks::norm(t, l + "ffn.ffn_layernorm", ffn, true);
    blocks::norm(t, l + "final_layer_norm", e, true);
    stack.layers.push_back(spec);
  }
  blocks::norm(t, p + "layer_norm", e, true);
  if (s.lm_head)
    tied_or_own(t, "text_model.lm_head.weight", p + "embed_tokens.weight", a.tie_word_embeddings);
}

void kosmos_image_to_text_projection(ModelTemplate& t, uint64_t queries, uint64_t vision_width) {
  const uint64_t e = t.arch.hidden_size;
  const std::string p = "image_to_text_projection.";
  t.add(p + "latent_query", {queries, e});
  blocks::linear(t, p + "dense", vision_width, e, true);
  kosmos_attention(t, p + "x_attn.", e, false);
  record_projector(t, "image_to_text_projection");
}

}  // namespace ma::families
