// Kosmos-2 (microsoft/kosmos-2-patch14-224): a CLIP ViT-L/14 (Kosmos2VisionModel), an image-to-text
// projection that lets latent_query_num learned queries attend over the projected patches (and themselves),
// and a MAGNETO-style (sub-LN) decoder: pre-LayerNorm attention with an extra LayerNorm before its output
// projection, an MLP with a LayerNorm between its two linears, sinusoidal positions (a non-persistent
// buffer).
#include <string>

#include "model/blocks.h"
#include "model/families/clip_like_tower.h"
#include "model/families/decoder_common.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"
#include "model/families/vlm_classics.h"

namespace ma::families {
namespace {

// Kosmos2VisionConfig's defaults (a ViT-L/14 at 224 pixels).
constexpr ClipLikeVision kKosmos2Vision{.hidden = 1024,
                                        .intermediate = 4096,
                                        .layers = 24,
                                        .heads = 16,
                                        .channels = 3,
                                        .image = 224,
                                        .patch = 14};

// KosmosTextAttention: biased k, v, q, out (registered in that order), and the sub-LN before out_proj when
// `inner_norm`.
void kosmos_attention(ModelTemplate& t, const std::string& p, uint64_t e, bool inner_norm) {
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"}) blocks::linear(t, p + proj, e, e, true);
  if (inner_norm) blocks::norm(t, p + "inner_attn_ln", e, true);
}

// Kosmos2TextTransformer under `p`; its dimensions are already in the record.
void text_transformer(ModelTemplate& t, const std::string& p, bool cross) {
  ArchitectureRecord& a = t.arch;
  const uint64_t e = a.hidden_size, ffn = a.intermediate_size;
  blocks::embedding(t, p + "embed_tokens.weight", a.vocab_size, e);
  StackSpec& stack = a.add_stack(StackRole::Decoder, p + "layers", e);
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i) + ".";
    kosmos_attention(t, l + "self_attn.", e, true);
    blocks::norm(t, l + "self_attn_layer_norm", e, true);
    LayerSpec s = attention_layer(a);
    if (cross) {  // add_cross_attention: unused by the released model
      kosmos_attention(t, l + "encoder_attn.", e, false);
      blocks::norm(t, l + "encoder_attn_layer_norm", e, true);
      s.cross_attention = s.attention;
    }
    blocks::linear(t, l + "ffn.fc1", e, ffn, true);
    blocks::linear(t, l + "ffn.fc2", ffn, e, true);
    blocks::norm(t, l + "ffn.ffn_layernorm", ffn, true);
    blocks::norm(t, l + "final_layer_norm", e, true);
    stack.layers.push_back(s);
  }
  blocks::norm(t, p + "layer_norm", e, true);
}

}  // namespace

void build_kosmos2(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "Kosmos2ForConditionalGeneration");
  const std::string task = supported_task(cfg, cls, "Kosmos2", {"ForConditionalGeneration", "Model"});
  const ModelConfig tc = sub_or_empty(cfg, "text_config");
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  // Kosmos2TextConfig's names and defaults.
  a.vocab_size = tc.dim_or("vocab_size", 65037);
  a.max_position_embeddings = tc.dim_or("max_position_embeddings", 2048);
  a.hidden_size = tc.dim_or("embed_dim", 2048);
  a.num_layers = tc.layers_or("layers", 24);
  a.intermediate_size = tc.dim_or("ffn_dim", 8192);
  a.num_attention_heads = a.num_key_value_heads = tc.dim_or("attention_heads", 32);
  a.head_dim = split_heads(tc, "attention_heads", a.hidden_size, a.num_attention_heads);
  // The composite ties by Kosmos2Config's flag, the inner causal LM by Kosmos2TextConfig's (both default
  // true): tied when either is.
  a.tie_word_embeddings = cfg.flag_or("tie_word_embeddings", true) || tc.flag_or("tie_word_embeddings", true);
  const ClipLikeVision v = read_clip_like_vision(sub_or_empty(cfg, "vision_config"), kKosmos2Vision);
  const bool generation = task == "ForConditionalGeneration";
  text_transformer(t, "text_model.model.", tc.flag_or("add_cross_attention", false));
  if (generation)
    tied_or_own(t, "text_model.lm_head.weight", "text_model.model.embed_tokens.weight",
                a.tie_word_embeddings);
  clip_like_vision_tower(t, "vision_model.model.", v);
  // Kosmos2ImageToTextProjection: its latent queries (its own parameter, listed first), the patch projection
  // and the attention of the queries over patches and queries.
  const std::string p = "image_to_text_projection.";
  t.add(p + "latent_query", {cfg.dim_or("latent_query_num", 64), a.hidden_size});
  blocks::linear(t, p + "dense", v.hidden, a.hidden_size, true);
  kosmos_attention(t, p + "x_attn.", a.hidden_size, false);
  record_projector(t, "image_to_text_projection");
}

}  // namespace ma::families
