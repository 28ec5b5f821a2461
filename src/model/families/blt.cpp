// BLT (blt; facebook/blt-1b, blt-7b: the Byte Latent Transformer). Bytes (260 ids) are embedded and summed
// with hash n-gram embeddings (one table of encoder_hash_byte_group_vocab rows per hash function and n-gram
// size, fused into encoder_hash_tok_embedding); a small local encoder runs over the bytes and pools them into
// patches by cross-attention, a large global transformer runs over the patches, and a local decoder
// cross-attends from the bytes to the patches before the byte-level head. With patch_in_forward a separate
// byte LM (the patcher, frozen but counted) finds the patch boundaries from its next-byte entropy. Every
// transformer layer is Llama's (bias-free projections, SwiGLU, RMSNorm); each sub-config has its own sizes.
#include <string>
#include <vector>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoders_b.h"
#include "model/families/encoders_common.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

// One component config (BltLocalEncoderConfig, BltLocalDecoderConfig, BltGlobalTransformerConfig,
// BltPatcherConfig); `d` holds the class's defaults.
struct BltPart {
  uint64_t vocab = 260, hidden = 1024, heads = 16, kv_heads = 0, layers = 1, intermediate = 2816;
  uint64_t hidden_global = 2048, cross_attn_k = 2;
  bool cross_attn_all_layers = false;
  uint64_t head_dim() const { return hidden / heads; }  // hidden_size // num_attention_heads
};

BltPart read_blt_part(const ModelConfig& c, BltPart d) {
  BltPart p = d;
  p.vocab = c.dim_or("vocab_size", d.vocab);
  p.hidden = c.dim_or("hidden_size", d.hidden);
  p.heads = c.dim_or("num_attention_heads", d.heads);
  // num_key_value_heads or num_attention_heads: null and 0 mean as many as the heads.
  p.kv_heads = c.opt_count("num_key_value_heads").value_or(0);
  if (p.kv_heads == 0) p.kv_heads = p.heads;
  p.layers = c.layers_or("num_hidden_layers", d.layers, 0);
  // intermediate_size or int(8 * hidden_size / 3): a null (or 0) size is derived, an absent one defaulted.
  const json::Value* inter = c.raw("intermediate_size");
  p.intermediate = inter && (inter->is_null() || c.count_or("intermediate_size", 1) == 0)
                       ? 8 * p.hidden / 3
                       : c.dim_or("intermediate_size", d.intermediate);
  p.hidden_global = c.dim_or("hidden_size_global", d.hidden_global);
  p.cross_attn_k = c.dim_or("cross_attn_k", d.cross_attn_k);
  p.cross_attn_all_layers = c.flag_or("cross_attn_all_layers", d.cross_attn_all_layers);
  return p;
}

blocks::Attention blt_attention(const BltPart& p) {
  blocks::Attention a;
  a.hidden = p.hidden;
  a.heads = p.heads;
  a.kv_heads = p.kv_heads;
  a.head_dim = p.head_dim();
  return a;
}

// BltTransformerLayer: Llama's decoder layer.
void blt_layers(ModelTemplate& t, const std::string& prefix, const BltPart& p) {
  for (uint64_t i = 0; i < p.layers; ++i) {
    const std::string l = prefix + std::to_string(i) + ".";
    blocks::attention(t, l + "self_attn", blt_attention(p));
    blocks::gated_mlp(t, l + "mlp", p.hidden, p.intermediate);
    blocks::norm(t, l + "input_layernorm", p.hidden, false);
    blocks::norm(t, l + "post_attention_layernorm", p.hidden, false);
  }
}

// BltCrossAttention layers: q/k/v/o, then RMSNorms over the full width of the queries' and keys' inputs.
// One layer, or one per layer with cross_attn_all_layers.
void blt_cross_attention(ModelTemplate& t, const std::string& prefix, const BltPart& p) {
  for (uint64_t i = 0; i < (p.cross_attn_all_layers ? p.layers : 1); ++i) {
    const std::string l = prefix + std::to_string(i);
    blocks::attention(t, l, blt_attention(p));
    blocks::norm(t, l + ".q_norm", p.hidden, false);
    blocks::norm(t, l + ".k_norm", p.hidden, false);
  }
}

}  // namespace

void build_blt(const ModelConfig& cfg, ModelTemplate& t) {
  const std::string cls = architecture_of(cfg, "BltForCausalLM");
  const std::string task = supported_task(cfg, cls, "Blt", {"ForCausalLM", "Model"});
  const BltPart enc = read_blt_part(sub_or_empty(cfg, "encoder_config"), {});
  BltPart decoder_defaults;
  decoder_defaults.layers = 9;
  decoder_defaults.cross_attn_all_layers = true;
  const BltPart dec = read_blt_part(sub_or_empty(cfg, "decoder_config"), decoder_defaults);
  BltPart global_defaults;
  global_defaults.hidden = 2048;
  global_defaults.layers = 25;
  global_defaults.intermediate = 5632;
  const BltPart glob = read_blt_part(sub_or_empty(cfg, "global_config"), global_defaults);
  BltPart patcher_defaults;
  patcher_defaults.hidden = 768;
  patcher_defaults.heads = 12;
  patcher_defaults.layers = 14;
  patcher_defaults.intermediate = 2048;
  const BltPart patcher = read_blt_part(sub_or_empty(cfg, "patcher_config"), patcher_defaults);

  const uint64_t vocab = cfg.dim_or("vocab_size", 260);
  const uint64_t cross_k = cfg.dim_or("cross_attn_k", 2);
  // `encoder_hash_byte_group_size or [3, 4, 5, 6, 7, 8]`: an empty list takes the default too.
  std::vector<uint64_t> group_sizes = cfg.dims_or("encoder_hash_byte_group_size", {3, 4, 5, 6, 7, 8});
  if (group_sizes.empty()) group_sizes = {3, 4, 5, 6, 7, 8};
  const uint64_t hash_rows = cfg.dim_or("encoder_hash_byte_group_vocab", 500002) *
                             cfg.dim_or("encoder_hash_byte_group_nb_functions", 1) * group_sizes.size();
  const bool tie = cfg.flag_or("tie_word_embeddings", false);
  // BltForCausalLM ties lm_head [vocab, decoder width] to the byte embedding [260, encoder width].
  if (tie && task == "ForCausalLM" && (dec.hidden != enc.hidden || vocab != enc.vocab))
    cfg.fail("tie_word_embeddings",
             "ties lm_head to the local encoder's embed_tokens, which differs in shape");

  // The record: the global transformer over patches is the model's main stack; the byte-level local
  // encoder and decoder (and the patcher) are not recorded as stacks, as CSM's depth decoder is not.
  ArchitectureRecord& a = t.arch;
  a.architecture = cls;
  a.vocab_size = vocab;
  a.hidden_size = glob.hidden;
  a.num_layers = glob.layers;
  a.num_attention_heads = glob.heads;
  a.num_key_value_heads = glob.kv_heads;
  a.head_dim = glob.head_dim();
  a.intermediate_size = glob.intermediate;
  a.max_position_embeddings = cfg.dim_or("max_position_embeddings", 4096);
  a.tie_word_embeddings = tie;

  const std::string p = task == "ForCausalLM" ? "model." : "";
  const std::string e = p + "local_encoder.";
  blt_layers(t, e + "layers.", enc);
  blocks::linear(t, e + "patch_embedding_projection", enc.hidden, enc.hidden * enc.cross_attn_k, false);
  blocks::embedding(t, e + "embed_tokens.weight", enc.vocab, enc.hidden);
  blt_cross_attention(t, e + "cross_attn_layers.", enc);

  StackSpec& stack = a.add_stack(StackRole::Decoder, p + "global_transformer.layers", glob.hidden);
  blt_layers(t, p + "global_transformer.layers.", glob);
  for (uint64_t i = 0; i < glob.layers; ++i) stack.layers.push_back(attention_layer(a));
  // BltConfig adds the projection when the encoder's pooled patches (width x the top-level cross_attn_k)
  // are not the global width (blt-7b).
  if (enc.hidden * cross_k != glob.hidden)
    blocks::linear(t, p + "global_transformer.token_embedding_projection", enc.hidden * cross_k, glob.hidden,
                   false);

  const std::string d = p + "local_decoder.";
  blt_layers(t, d + "layers.", dec);
  blocks::linear(t, d + "patch_embedding_projection", dec.hidden_global, dec.hidden * dec.cross_attn_k,
                 false);
  blocks::norm(t, d + "norm", dec.hidden, false);
  blt_cross_attention(t, d + "cross_attn_layers.", dec);

  blocks::embedding(t, p + "encoder_hash_tok_embedding.weight", hash_rows, enc.hidden);
  if (cfg.flag_or("patch_in_forward", true)) {
    const std::string q = p + "patcher.";
    blt_layers(t, q + "layers.", patcher);
    blocks::embedding(t, q + "embed_tokens.weight", patcher.vocab, patcher.hidden);
    blocks::norm(t, q + "norm", patcher.hidden, false);
    blocks::linear(t, q + "lm_head", patcher.hidden, patcher.vocab, false);
  }
  if (task == "ForCausalLM") {
    if (tie)
      t.tie("lm_head.weight", e + "embed_tokens.weight");
    else
      blocks::linear(t, "lm_head", dec.hidden, vocab, false);
  }
}

}  // namespace ma::families
