// Doge (SmallDoge's Doge-20M ... Doge-320M): Dynamic Mask Attention, a GQA attention whose mask adds, per key
// and kv head, exp(A * softplus(dt_proj(values))) and keeps only the keep_window_size strongest keys; learned
// residual scales around both halves of the layer; with is_moe, the MLP becomes a Cross Domain Mixture of
// Experts: the dense gated MLP plus num_experts rank-one experts (a row of down_embed, a row of up_embed),
// chosen by product-key routing over two sets of floor(sqrt(num_experts)) keys.
#include <cmath>

#include "model/families/decoder_common.h"
#include "model/families/decoders_b.h"

namespace ma::families {
namespace {

// math.floor(math.sqrt(n)), exact for every n a config may hold.
uint64_t doge_product_keys(uint64_t experts) {
  auto root = static_cast<uint64_t>(std::sqrt(static_cast<double>(experts)));
  while (root * root > experts) --root;
  while ((root + 1) * (root + 1) <= experts) ++root;
  return root;
}

// DogeAttention registers A (its own parameter, so first in named_parameters) after q/k/v_proj, then dt_proj,
// o_proj and the per-head q/k RMSNorms.
void doge_attention(ModelTemplate& t, const std::string& p, bool bias) {
  const ArchitectureRecord& a = t.arch;
  const uint64_t h = a.hidden_size, hd = a.head_dim, kv = a.num_key_value_heads;
  t.add(p + "A", {kv});
  blocks::linear(t, p + "q_proj", h, a.num_attention_heads * hd, bias);
  blocks::linear(t, p + "k_proj", h, kv * hd, bias);
  blocks::linear(t, p + "v_proj", h, kv * hd, bias);
  blocks::linear(t, p + "dt_proj", kv * hd, kv, bias);
  blocks::linear(t, p + "o_proj", a.num_attention_heads * hd, h, bias);
  blocks::norm(t, p + "q_norm", hd, false);
  blocks::norm(t, p + "k_norm", hd, false);
}

// DogeCDMoE: the shared gated MLP, the router over 2 x num_keys product keys, then the experts, one row each
// of down_embed and up_embed. Those are nn.Embedding weights, which transformers' exclude_embeddings drops,
// but no token table: they are counted as routed experts (a token runs num_experts_per_tok rows of each), not
// as embeddings, so that active and non-embedding figures subtract them once.
void doge_cdmoe(ModelTemplate& t, const std::string& p, bool mlp_bias, uint64_t keys) {
  const ArchitectureRecord& a = t.arch;
  blocks::gated_mlp(t, p, a.hidden_size, a.intermediate_size, mlp_bias);
  blocks::linear(t, p + ".router_gate", a.hidden_size, 2 * keys, false);
  blocks::routed(t, p + ".down_embed.weight", {a.num_experts, a.hidden_size});
  blocks::routed(t, p + ".up_embed.weight", {a.num_experts, a.hidden_size});
}

}  // namespace

void build_doge(const ModelConfig& cfg, ModelTemplate& t) {
  t.arch.architecture = "DogeForCausalLM";
  DecoderDefaults d;  // DogeConfig's: the Doge-320M sizes
  d.vocab_size = 32768;
  d.hidden_size = 1024;
  d.intermediate_size = 2048;
  d.num_hidden_layers = 32;
  d.num_attention_heads = 8;
  read_decoder_dims(cfg, d, t);
  ArchitectureRecord& a = t.arch;
  const bool attention_bias = cfg.flag_or("attention_bias", false);
  const bool mlp_bias = cfg.flag_or("mlp_bias", false);
  const bool moe = cfg.flag_or("is_moe", false);
  uint64_t keys = 0;
  if (moe) {
    a.num_experts = cfg.dim_or("num_experts", 16384);
    a.experts_per_token = cfg.dim_or("num_experts_per_tok", 64);
    if (a.experts_per_token > a.num_experts) cfg.fail("num_experts_per_tok", "must not exceed num_experts");
    a.num_shared_experts = 1;
    a.moe_intermediate_size = 1;  // an expert: one hidden-wide row in, one hidden-wide row out
    keys = doge_product_keys(a.num_experts);
  }
  // sliding_window null (the default): a causal mask over the whole context.
  const uint64_t window = window_or_none(cfg, 0);
  token_embedding(t, "model.embed_tokens.weight", a);
  StackSpec& stack = a.add_stack(StackRole::Decoder, "model.layers");
  for (uint64_t i = 0; i < a.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    // The layer's own scales come before its modules in named_parameters().
    t.add(p + "input_residual", {a.hidden_size});
    t.add(p + "post_attention_residual", {a.hidden_size});
    blocks::norm(t, p + "input_layernorm", a.hidden_size, false);
    doge_attention(t, p + "self_attn.", attention_bias);
    blocks::norm(t, p + "post_attention_layernorm", a.hidden_size, false);
    LayerSpec l = attention_layer(a, window, moe ? Ffn::Moe : Ffn::Dense);
    if (moe) {
      doge_cdmoe(t, p + "mlp", mlp_bias, keys);
      l.ffn.shared_experts = 1;
      l.ffn.shared_intermediate = a.intermediate_size;
      l.ffn.expert_matrices = 2;  // down_embed and up_embed, no gate
    } else {
      blocks::gated_mlp(t, p + "mlp", a.hidden_size, a.intermediate_size, mlp_bias);
    }
    stack.layers.push_back(l);
  }
  blocks::norm(t, "model.norm", a.hidden_size, false);
  lm_head(t, "model.embed_tokens.weight", a);
}

}  // namespace ma::families
